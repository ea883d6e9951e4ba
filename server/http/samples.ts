/**
 * Sample datasets (language/samples) loaded on the first start of a data directory, through the
 * normal durable ingest path, so they behave exactly like user data (and can be deleted). The
 * generator's defaults (seed 1, the 30 days up to the current minute) are the ones `apl run` uses,
 * so a fresh service and `apl run` give the same events for the same time window.
 */
import { generateSample, sampleMapFields, SAMPLE_DATASETS } from '../../language/index.js';
import type { DataPlane } from './data-plane.js';

export const DEFAULT_SAMPLE_ROWS = 10_000;
const BATCH = 5000;

export async function loadSamples(data: DataPlane, opts: { rows: number; who: string }): Promise<string[]> {
    const loaded: string[] = [];
    for (const spec of SAMPLE_DATASETS) {
        if (data.hasDataset(spec.name)) continue;
        await data.createDataset({ name: spec.name, description: spec.description, who: opts.who, mapFields: [...sampleMapFields(spec)] });
        let lines: string[] = [];
        const flush = async (): Promise<void> => {
            if (lines.length === 0) return;
            await data.ingest(spec.name, { body: Buffer.from(lines.join('\n'), 'utf8'), contentType: 'application/x-ndjson' });
            lines = [];
        };
        for (const ev of generateSample(spec.name, { rows: opts.rows, seed: 1 })) {
            lines.push(JSON.stringify(ev));
            if (lines.length >= BATCH) await flush();
        }
        await flush();
        loaded.push(spec.name);
    }
    return loaded;
}
