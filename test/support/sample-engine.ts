/**
 * An engine holding generated events of every sample dataset, for the tests that check a query and
 * run it (the checker and the evaluator must agree on the same datasets).
 */
import { createEngine, type Engine, type EngineOptions } from '../../language/index.js';
import { generateSample, SAMPLE_DATASET_NAMES, type GenerateSampleOptions } from '../../language/samples/index.js';
import { StaticSchemaProvider } from '../../language/schema/index.js';
import type { AplType } from '../../language/types/apl-types.js';

/** A new engine with `sample` events (rows, seed, end) of each sample dataset. */
export function sampleEngine(sample: GenerateSampleOptions, options?: EngineOptions): Engine {
    const engine = createEngine(options);
    for (const name of SAMPLE_DATASET_NAMES) {
        engine.createDataset(name);
        engine.ingest(name, generateSample(name, sample));
    }
    return engine;
}

/** The schema of the sample datasets as `engine` holds them (it reports APL type names: string, long, real, …). */
export function engineSchema(engine: Engine): StaticSchemaProvider {
    return new StaticSchemaProvider(SAMPLE_DATASET_NAMES.map(name => ({ name, fields: engine.fields(name).map(f => ({ name: f.name, type: f.type as AplType })) })));
}
