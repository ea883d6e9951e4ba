/**
 * The live schema of the active connection: its datasets (`GET /v2/datasets`) and each one's
 * fields (`GET /v2/datasets/{id}/fields`), given to the language server (`apl/setSchema`, in the
 * `{"datasets": [{name, fields}]}` shape of docs/schema-file.md) so that completion offers them and
 * unknown names get warnings. Fetched on connect and on `APL: Refresh Schema`.
 */
import type { AplClient } from '../../../api/client.js';
import type { DatasetField } from '../../../api/types.js';

export interface SchemaDataset {
    name: string;
    fields: DatasetField[];
}

/** Fields of several datasets are fetched at once, a few at a time. */
const CONCURRENCY = 4;

export async function fetchSchema(client: AplClient, signal?: AbortSignal): Promise<SchemaDataset[]> {
    const datasets = (await client.datasets.list()).map(d => d.name).sort((a, b) => a.localeCompare(b));
    const out: SchemaDataset[] = new Array(datasets.length);
    let next = 0;
    const worker = async () => {
        while (next < datasets.length) {
            signal?.throwIfAborted();
            const i = next++;
            const fields = await client.datasets.fields(datasets[i]).catch(() => [] as DatasetField[]);
            out[i] = { name: datasets[i], fields: fields.filter(f => !f.hidden).sort((a, b) => a.name.localeCompare(b.name)) };
        }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENCY, datasets.length) }, worker));
    return out;
}

/** The `apl/setSchema` payload. */
export function schemaPayload(datasets: readonly SchemaDataset[]): { datasets: { name: string; fields: DatasetField[] }[] } {
    return { datasets: datasets.map(d => ({ name: d.name, fields: d.fields })) };
}

/** A name as a query writes it: `['geo.city']` unless it is a plain identifier. */
export { quoteName } from '../../../../language/quote-name.js';
