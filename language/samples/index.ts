/**
 * Sample data: seeded, deterministic generators for the datasets the APL docs query, and their
 * schemas (`SAMPLE_DATASETS`, the single source of truth for generators and `BuiltinSchemaProvider`).
 *
 * ```ts
 * for (const ev of generateSample('sample-http-logs', { rows: 1000, seed: 7, end: new Date('2025-01-01') })) ...
 * ```
 * Events are nested JSON objects as a client would ingest them; `_time` is an RFC 3339 string with
 * nine fractional digits. Same name, rows, seed, end and days => the same events.
 */
import { generateHttpLogs } from './http-logs.js';
import { generateOtelTraces } from './otel-traces.js';
import { generateOtelGenai } from './otel-genai.js';
import { generateGithubIssuesEvents, generateGithubPushEvents } from './github-events.js';
import { normalizeSampleOptions, type GenerateSampleOptions, type SampleOptions } from './options.js';
import { SAMPLE_DATASETS, type SampleDatasetSpec } from './sample-datasets.js';

export { SAMPLE_DATASETS, sampleDatasetSpec } from './sample-datasets.js';
export type { SampleDatasetSpec, SampleFieldSpec } from './sample-datasets.js';
export type { GenerateSampleOptions } from './options.js';
export { flattenEvent } from '../ingest/normalize-event.js';
export { Rng } from './random.js';

type Generator = (options: SampleOptions) => Iterable<Record<string, unknown>>;

const GENERATORS: Readonly<Record<string, Generator>> = {
    'sample-http-logs': generateHttpLogs,
    'otel-demo-traces': generateOtelTraces,
    'otel-demo-genai': generateOtelGenai,
    'github-push-event': generateGithubPushEvents,
    'github-issues-event': generateGithubIssuesEvents,
};

/** Names of the datasets `generateSample` knows. */
export const SAMPLE_DATASET_NAMES: readonly string[] = SAMPLE_DATASETS.map(d => d.name);

/**
 * Generates `rows` events of a sample dataset, lazily. Throws for an unknown name or bad options
 * (checked when called, not on first iteration).
 */
export function generateSample(name: string, options: GenerateSampleOptions): Iterable<Record<string, unknown>> {
    const generator = Object.prototype.hasOwnProperty.call(GENERATORS, name) ? GENERATORS[name] : undefined;
    if (!generator) {
        throw new Error(`unknown sample dataset '${name}'; known: ${SAMPLE_DATASET_NAMES.join(', ')}`);
    }
    return generator(normalizeSampleOptions(options));
}

/** Names of the map fields of a sample dataset (kept as one dynamic field by ingestion). */
export function sampleMapFields(spec: SampleDatasetSpec): Set<string> {
    return new Set(spec.fields.filter(f => f.map).map(f => f.name));
}
