/**
 * An engine holding generated events of every sample dataset, for the tests that check a query and
 * run it (the checker and the evaluator must agree on the same datasets).
 */
import { createEngine, type Engine, type EngineOptions } from '../../language/index.js';
import { generateSample, SAMPLE_DATASET_NAMES, type GenerateSampleOptions } from '../../language/samples/index.js';
import { StaticSchemaProvider } from '../../language/schema/index.js';
import type { AplType } from '../../language/types/apl-types.js';

/**
 * The moment the samples end and the engine's clock reads, unless a test gives its own. Events are
 * drawn back from their end: a sample that ended "now" would hold other events each day (200 of
 * them held no status 500 on some days), and `ago(30d)` would cut it elsewhere.
 */
export const SAMPLE_NOW = Date.parse('2026-11-29T12:30:00Z');

/** A new engine with `sample` events (rows, seed, end: SAMPLE_NOW unless given) of each sample dataset, its clock at the end. */
export function sampleEngine(sample: GenerateSampleOptions, options?: EngineOptions): Engine {
    const end = sample.end ?? new Date(SAMPLE_NOW);
    const engine = createEngine({ clock: () => end.getTime(), ...options });
    for (const name of SAMPLE_DATASET_NAMES) {
        engine.createDataset(name);
        engine.ingest(name, generateSample(name, { ...sample, end }));
    }
    return engine;
}

/** The schema of the sample datasets as `engine` holds them (it reports APL type names: string, long, real, …). */
export function engineSchema(engine: Engine): StaticSchemaProvider {
    return new StaticSchemaProvider(SAMPLE_DATASET_NAMES.map(name => ({ name, fields: engine.fields(name).map(f => ({ name: f.name, type: f.type as AplType })) })));
}
