import { MessageChannel, receiveMessageOnPort } from 'node:worker_threads';
import { createEngine, type Engine, type QueryOptions } from '../../../language/eval/engine.js';

/** A small fixed dataset: 6 events over two hours, with nulls, dotted fields and mixed values. */
export const LOG_EVENTS: Record<string, unknown>[] = [
    { _time: '2024-05-01T10:00:00Z', method: 'GET', status: '200', uri: '/api/v1/users', dur: 12.5, size: 1024, geo: { city: 'Berlin', country: 'Germany' }, tags: ['a', 'b'], ok: true },
    { _time: '2024-05-01T10:15:00Z', method: 'POST', status: '500', uri: '/api/v1/orders', dur: 250, size: 20480, geo: { city: 'Paris', country: 'France' }, tags: ['c'], ok: false },
    { _time: '2024-05-01T10:30:00Z', method: 'GET', status: '404', uri: '/static/app.js', dur: 3.25, size: 512, geo: { city: 'Berlin', country: 'Germany' }, ok: true },
    { _time: '2024-05-01T11:00:00Z', method: 'GET', status: '200', uri: '/api/v2/users_list', dur: 40, size: 4096, geo: { city: 'München', country: 'Germany' }, tags: [], ok: true },
    { _time: '2024-05-01T11:20:00Z', method: 'DELETE', status: '200', uri: '/api/v1/users/42', dur: null, size: 0, geo: { city: 'Lyon', country: 'France' }, ok: null },
    { _time: '2024-05-01T11:59:59.999999999Z', method: 'PUT', status: '503', uri: '/API/V1/Orders', dur: 99.5, size: 30000, geo: { city: 'Paris', country: 'France' }, ok: false },
];

export function logsEngine(): Engine {
    const engine = createEngine({ clock: () => Date.parse('2024-05-02T00:00:00Z') });
    engine.ingest('logs', LOG_EVENTS);
    return engine;
}

export type Row = Record<string, unknown>;

/** Rows of the first table, as the js client's `events()` would give them. */
export async function rows(engine: Engine, apl: string, opts?: QueryOptions): Promise<Row[]> {
    const r = await engine.query(apl, opts);
    const t = r.tables[0];
    const n = t.columns[0]?.length ?? 0;
    const out: Row[] = [];
    for (let i = 0; i < n; i++) out.push(Object.fromEntries(t.fields.map((f, k) => [f.name, t.columns[k][i]])));
    return out;
}

/** The single value of a one-row, one-column result. */
export async function scalar(engine: Engine, apl: string): Promise<unknown> {
    const r = await rows(engine, apl);
    return Object.values(r[0])[0];
}

/** A value as another thread receives it (postMessage's structured clone: SharedArrayBuffers shared, the rest copied). */
export function throughPort<T>(value: T): T {
    const { port1, port2 } = new MessageChannel();
    port1.postMessage(value);
    const got = receiveMessageOnPort(port2)!.message as T;
    port1.close();
    return got;
}
