import { type BenchContext, type SectionResult, Skip } from './harness.js';

export async function evalSection(_ctx: BenchContext): Promise<SectionResult> {
    throw new Skip('not written yet');
}
