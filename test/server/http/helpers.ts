/** Shared helpers for the service tests: an in-process service on port 0 over a temp data dir. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { createService, type Service, type ServiceOptions } from '../../../server/http/app.js';

export const TOKEN = 'xaat-test-token';

export interface TestService {
    svc: Service;
    url: string;
    dir: string;
    /** fetch with the token and JSON handling. */
    call(method: string, p: string, body?: unknown, headers?: Record<string, string>): Promise<Reply>;
    /** Raw fetch: body as given. */
    raw(method: string, p: string, body?: NonNullable<RequestInit['body']> | Uint8Array, headers?: Record<string, string>): Promise<Reply>;
    restart(extra?: Partial<ServiceOptions>): Promise<void>;
    stop(): Promise<void>;
}

export interface Reply {
    status: number;
    contentType: string;
    headers: Headers;
    text: string;
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    json: any;
}

export async function startService(opts: Partial<ServiceOptions> = {}, dir?: string): Promise<TestService> {
    const dataDir = dir ?? mkdtempSync(path.join(tmpdir(), 'apl-http-'));
    const options: ServiceOptions = { dataDir, port: 0, tokens: [TOKEN], samples: false, log: () => undefined, store: { compactInWorker: false }, ...opts };
    let svc = await createService(options);
    const t: TestService = {
        svc,
        url: svc.url,
        dir: dataDir,
        async raw(method, p, body, headers = {}) {
            const res = await fetch(t.url + p, {
                method,
                headers: { authorization: `Bearer ${TOKEN}`, ...headers },
                body: body as RequestInit['body'],
            });
            const text = await res.text();
            let json: unknown;
            try {
                json = text ? JSON.parse(text) : undefined;
            } catch {
                json = undefined;
            }
            return { status: res.status, contentType: res.headers.get('content-type') ?? '', headers: res.headers, text, json };
        },
        call(method, p, body, headers = {}) {
            return t.raw(method, p, body === undefined ? undefined : JSON.stringify(body), { 'content-type': 'application/json', ...headers });
        },
        async restart(extra = {}) {
            await svc.close();
            svc = await createService({ ...options, ...extra });
            t.svc = svc;
            t.url = svc.url;
        },
        async stop() {
            await svc.close();
            rmSync(dataDir, { recursive: true, force: true });
        },
    };
    return t;
}

/** Column-major tabular table → row objects. */
export function rows(result: { tables: { fields: { name: string }[]; columns: unknown[][] }[] }, table = 0): Record<string, unknown>[] {
    const t = result.tables[table];
    const n = t.columns[0]?.length ?? 0;
    const out: Record<string, unknown>[] = [];
    for (let r = 0; r < n; r++) out.push(Object.fromEntries(t.fields.map((f, i) => [f.name, t.columns[i][r]])));
    return out;
}

export async function createDataset(t: TestService, name: string): Promise<void> {
    const r = await t.call('POST', '/v2/datasets', { name });
    if (r.status !== 200) throw new Error(`create ${name}: ${r.status} ${r.text}`);
}

export function ndjson(events: unknown[]): string {
    return events.map((e) => JSON.stringify(e)).join('\n');
}
