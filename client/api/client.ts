/**
 * `AplClient`: a typed client for the Axiom-compatible service contract (API.md), for the local
 * service (`apl serve`) and the live endpoint (`https://api.axiom.co`, edge domains, org ids alike).
 *
 * ```ts
 * const client = new AplClient({ url: 'http://127.0.0.1:8686', token: 'xaat-…' });
 * await client.datasets.create({ name: 'logs' });
 * await client.ingest('logs', [{ msg: 'hi' }]);
 * const res = await client.query("['logs'] | take 10");
 * for await (const page of client.pagesByCursor("['logs']", { pageSize: 500 })) console.log(page.rows.length);
 * ```
 *
 * Uses the global `fetch`. Every failure is an `AplApiError` (status 0 when no response arrived).
 */
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { gzip as gzipCb } from 'node:zlib';
import { AplApiError } from './errors.js';
import { pagesByCursor, pagesByTime } from './paging.js';
import type {
    Annotation,
    AnnotationFilter,
    CreateAnnotationRequest,
    Monitor,
    MonitorRequest,
    UpdateAnnotationRequest,
    AplLegacyResult,
    CreateDatasetRequest,
    Dataset,
    DatasetField,
    DatasetInfo,
    IngestBody,
    IngestOptions,
    IngestStatus,
    LegacyQuery,
    LegacyQueryOptions,
    LegacyResult,
    Page,
    PagingOptions,
    QueryOptions,
    TabularResult,
    UpdateDatasetRequest,
    User,
} from './types.js';

const gzip = promisify(gzipCb);
type RequestBody = NonNullable<RequestInit['body']>;

export const DEFAULT_URL = 'https://api.axiom.co';
const VERSION = '0.1.0';

export interface AplClientOptions {
    /** Base URL, `http(s)://host[:port]` (a path is kept as a prefix). Default `https://api.axiom.co`. */
    url?: string;
    /** Edge base URL: ingest and APL queries then go to `/v1/ingest/{ds}` and `/v1/query/_apl` there. */
    edgeUrl?: string;
    /** Edge host (`eu-central-1.aws.edge.axiom.co`); the same as `edgeUrl: https://<edge>`. */
    edge?: string;
    /** `xaat-…` (API token) or `xapt-…` (personal token, usually with `orgId`). */
    token?: string;
    /** Sent as `X-Axiom-Org-Id`. */
    orgId?: string;
    /** Per-request timeout in ms. Default 120 s for queries, 60 s otherwise. 0 = none. */
    timeoutMs?: number;
    /** Extra headers on every request. */
    headers?: Record<string, string>;
    /** A fetch implementation (tests). Default the global `fetch`. */
    fetch?: typeof fetch;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

interface RequestSpec {
    method: Method;
    /** Absolute URL. */
    url: string;
    json?: unknown;
    body?: RequestBody;
    headers?: Record<string, string>;
    timeoutMs?: number;
    signal?: AbortSignal;
    /** The body is a stream: fetch needs `duplex: 'half'`. */
    streaming?: boolean;
    /** Only reads (a query): sent again once if its connection is reset before any answer (`sentAgainOnReset`). */
    readOnly?: boolean;
}

/** Errors of a connection that closed before any answer came: a kept-alive one the server had just closed. */
const RESET_BEFORE_ANSWER = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * A request that only reads is sent again once when its connection was reset before any answer:
 * a server or proxy may close an idle kept-alive connection just as the next request goes out on
 * it. Writes (ingest, create, delete) never are: the server may have acted on them.
 */
function sentAgainOnReset(spec: RequestSpec, e: unknown): boolean {
    if (spec.streaming || !(spec.method === 'GET' || spec.readOnly)) return false;
    const code = (e as { cause?: { code?: string } }).cause?.code;
    return code !== undefined && RESET_BEFORE_ANSWER.has(code);
}

function trimSlash(s: string): string {
    return s.replace(/\/+$/, '');
}

function timeParam(t: string | Date | undefined): string | undefined {
    if (t === undefined || t === '') return undefined;
    return t instanceof Date ? t.toISOString() : t;
}

export class AplClient {
    readonly url: string;
    readonly edgeUrl: string | undefined;
    private readonly token: string | undefined;
    private readonly orgId: string | undefined;
    private readonly timeoutMs: number | undefined;
    private readonly extraHeaders: Record<string, string>;
    private readonly fetchImpl: typeof fetch;

    /** Annotations (`/v2/annotations`). */
    readonly annotations: {
        list(filter?: AnnotationFilter): Promise<Annotation[]>;
        get(id: string): Promise<Annotation>;
        create(request: CreateAnnotationRequest): Promise<Annotation>;
        update(id: string, request: UpdateAnnotationRequest): Promise<Annotation>;
        delete(id: string): Promise<void>;
    };

    /** Monitor definitions (`/v2/monitors`). */
    readonly monitors: {
        list(): Promise<Monitor[]>;
        get(id: string): Promise<Monitor>;
        create(request: MonitorRequest): Promise<Monitor>;
        update(id: string, request: MonitorRequest): Promise<Monitor>;
        delete(id: string): Promise<void>;
    };

    /** Dataset management (`/v2/datasets`). */
    readonly datasets: {
        list(): Promise<Dataset[]>;
        get(id: string): Promise<Dataset>;
        create(request: CreateDatasetRequest): Promise<Dataset>;
        update(id: string, request: UpdateDatasetRequest): Promise<Dataset>;
        delete(id: string): Promise<void>;
        fields(id: string): Promise<DatasetField[]>;
        /** Event, block and byte counts, the time range and the fields (`GET /v1/datasets/{id}/info`). */
        info(id: string): Promise<DatasetInfo>;
        /** Deletes the events older than `maxDuration` (a Go duration: `24h`, `30m`) (`POST /v2/datasets/{id}/trim`). */
        trim(id: string, maxDuration: string): Promise<void>;
    };

    constructor(options: AplClientOptions = {}) {
        this.url = trimSlash(options.url ?? DEFAULT_URL);
        if (!/^https?:\/\//i.test(this.url)) throw new TypeError(`url must start with http:// or https://, got '${options.url}'`);
        this.edgeUrl = options.edgeUrl ? trimSlash(options.edgeUrl) : options.edge ? `https://${trimSlash(options.edge)}` : undefined;
        this.token = options.token || undefined;
        this.orgId = options.orgId || undefined;
        this.timeoutMs = options.timeoutMs;
        this.extraHeaders = options.headers ?? {};
        const f = options.fetch ?? globalThis.fetch;
        if (typeof f !== 'function') throw new TypeError('no fetch implementation: Node 18+ provides a global fetch');
        this.fetchImpl = f;
        this.annotations = this.resource<Annotation, CreateAnnotationRequest, UpdateAnnotationRequest, AnnotationFilter>('/v2/annotations');
        this.monitors = this.resource<Monitor, MonitorRequest, MonitorRequest, never>('/v2/monitors');
        const ds = (id: string) => `${this.url}/v2/datasets/${encodeURIComponent(id)}`;
        this.datasets = {
            list: () => this.call<Dataset[]>({ method: 'GET', url: `${this.url}/v2/datasets` }),
            get: id => this.call<Dataset>({ method: 'GET', url: ds(id) }),
            create: request => this.call<Dataset>({ method: 'POST', url: `${this.url}/v2/datasets`, json: request }),
            update: (id, request) => this.call<Dataset>({ method: 'PUT', url: ds(id), json: request }),
            delete: async id => {
                await this.call<unknown>({ method: 'DELETE', url: ds(id) });
            },
            fields: id => this.call<DatasetField[]>({ method: 'GET', url: `${ds(id)}/fields` }),
            info: id => this.call<DatasetInfo>({ method: 'GET', url: `${this.url}/v1/datasets/${encodeURIComponent(id)}/info` }),
            trim: async (id, maxDuration) => {
                await this.call<unknown>({ method: 'POST', url: `${ds(id)}/trim`, json: { maxDuration } });
            },
        };
    }

    /** list/get/create/update/delete of a `/v2/<things>` collection; `list`'s filter becomes the query string (arrays comma-joined). */
    private resource<T, C, U, F extends object>(base: string) {
        const one = (id: string) => `${this.url}${base}/${encodeURIComponent(id)}`;
        return {
            list: (filter?: F) => {
                const q = new URLSearchParams();
                for (const [k, v] of Object.entries(filter ?? {})) if (v !== undefined) q.set(k, Array.isArray(v) ? v.join(',') : String(v));
                const qs = q.toString();
                return this.call<T[]>({ method: 'GET', url: `${this.url}${base}${qs ? `?${qs}` : ''}` });
            },
            get: (id: string) => this.call<T>({ method: 'GET', url: one(id) }),
            create: (request: C) => this.call<T>({ method: 'POST', url: `${this.url}${base}`, json: request }),
            update: (id: string, request: U) => this.call<T>({ method: 'PUT', url: one(id), json: request }),
            delete: async (id: string) => {
                await this.call<unknown>({ method: 'DELETE', url: one(id) });
            },
        };
    }

    /** The fields of a dataset (`GET /v2/datasets/{id}/fields`). */
    fields(dataset: string): Promise<DatasetField[]> {
        return this.datasets.fields(dataset);
    }

    /** The user the token belongs to (`GET /v2/user`). */
    user(): Promise<User> {
        return this.call<User>({ method: 'GET', url: `${this.url}/v2/user` });
    }

    /**
     * Ingests events (an array of objects: sent as gzipped NDJSON) or a raw body (bytes, text or a
     * byte stream, with `contentType`, default NDJSON, and `contentEncoding` as the bytes are).
     */
    async ingest(dataset: string, data: readonly Record<string, unknown>[] | IngestBody, options: IngestOptions = {}): Promise<IngestStatus> {
        const params = new URLSearchParams();
        if (options.timestampField) params.set('timestamp-field', options.timestampField);
        if (options.timestampFormat) params.set('timestamp-format', options.timestampFormat);
        if (options.csvDelimiter) params.set('csv-delimiter', options.csvDelimiter);
        const qs = params.toString();
        const base = this.edgeUrl ? `${this.edgeUrl}/v1/ingest/${encodeURIComponent(dataset)}` : `${this.url}/v1/datasets/${encodeURIComponent(dataset)}/ingest`;
        const headers: Record<string, string> = {};
        let body: RequestBody;
        let streaming = false;
        if (Array.isArray(data)) {
            const ndjson = (data as readonly Record<string, unknown>[]).map(e => JSON.stringify(e)).join('\n');
            body = new Uint8Array(await gzip(Buffer.from(ndjson, 'utf8')));
            headers['Content-Type'] = 'application/x-ndjson';
            headers['Content-Encoding'] = 'gzip';
        } else {
            headers['Content-Type'] = options.contentType ?? 'application/x-ndjson';
            const enc = options.contentEncoding ?? '';
            if (enc !== '' && enc !== 'identity') headers['Content-Encoding'] = enc;
            ({ body, streaming } = toBody(data as IngestBody));
        }
        if (options.labels) headers['X-Axiom-Event-Labels'] = JSON.stringify(options.labels);
        if (options.csvFields) headers['X-Axiom-CSV-Fields'] = options.csvFields.join(',');
        return this.call<IngestStatus>({ method: 'POST', url: qs ? `${base}?${qs}` : base, body, headers, streaming });
    }

    /** Runs APL (`POST /v1/datasets/_apl?format=…`). */
    query(apl: string, options?: QueryOptions & { format?: 'tabular' }): Promise<TabularResult>;
    query(apl: string, options: QueryOptions & { format: 'legacy' }): Promise<AplLegacyResult>;
    query(apl: string, options?: QueryOptions): Promise<TabularResult | AplLegacyResult>;
    query(apl: string, options: QueryOptions = {}): Promise<TabularResult | AplLegacyResult> {
        const params = new URLSearchParams();
        if (options.noCache) params.set('nocache', 'true');
        params.set('format', options.format ?? 'tabular');
        const body: Record<string, unknown> = { apl };
        const startTime = timeParam(options.startTime);
        const endTime = timeParam(options.endTime);
        if (startTime) body.startTime = startTime;
        if (endTime) body.endTime = endTime;
        if (options.cursor) body.cursor = options.cursor;
        if (options.includeCursor) body.includeCursor = true;
        if (options.includeCursorField) body.includeCursorField = true;
        if (options.variables && Object.keys(options.variables).length > 0) body.variables = options.variables;
        const base = this.edgeUrl ? `${this.edgeUrl}/v1/query/_apl` : `${this.url}/v1/datasets/_apl`;
        return this.call({
            method: 'POST',
            url: `${base}?${params}`,
            json: body,
            timeoutMs: options.timeoutMs ?? this.timeoutMs ?? 120_000,
            signal: options.signal,
            readOnly: true,
        });
    }

    /** Runs a legacy structured query (`POST /v1/datasets/{id}/query`). */
    queryLegacy(dataset: string, query: LegacyQuery, options: LegacyQueryOptions = {}): Promise<LegacyResult> {
        const params = new URLSearchParams();
        if (options.streamingDuration) params.set('streaming-duration', options.streamingDuration);
        if (options.noCache) params.set('nocache', 'true');
        const qs = params.toString();
        const url = `${this.url}/v1/datasets/${encodeURIComponent(dataset)}/query${qs ? `?${qs}` : ''}`;
        return this.call({ method: 'POST', url, json: query, timeoutMs: this.timeoutMs ?? 120_000, signal: options.signal, readOnly: true });
    }

    /**
     * Pages through a query's rows by cursor (API.md §10.2): the query gets `| sort by _time <order>
     * | limit <pageSize>` appended; the next page is requested with `minCursor` (desc) or `maxCursor`
     * (asc). Stops when the cursor does not move or a page has fewer rows than the page size.
     */
    pagesByCursor(apl: string, options: PagingOptions = {}): AsyncGenerator<Page, void, undefined> {
        return pagesByCursor(this, apl, options);
    }

    /**
     * Pages through a query's rows by time (API.md §10.3): each page narrows the time range to just
     * past the last row's `_time` (rows sharing that `_time` are neither lost nor repeated).
     */
    pagesByTime(apl: string, options: PagingOptions = {}): AsyncGenerator<Page, void, undefined> {
        return pagesByTime(this, apl, options);
    }

    // ---------------------------------------------------------------------------------- transport

    private headers(spec: RequestSpec): Record<string, string> {
        const h: Record<string, string> = {
            Accept: 'application/json',
            'User-Agent': `apl-tools/${VERSION}`,
            ...this.extraHeaders,
        };
        if (this.token) h.Authorization = `Bearer ${this.token}`;
        if (this.orgId) h['X-Axiom-Org-Id'] = this.orgId;
        if (spec.json !== undefined) h['Content-Type'] = 'application/json';
        return { ...h, ...spec.headers };
    }

    private async call<T>(spec: RequestSpec): Promise<T> {
        const timeoutMs = spec.timeoutMs ?? this.timeoutMs ?? 60_000;
        const controller = new AbortController();
        let timedOut = false;
        const timer =
            timeoutMs > 0
                ? setTimeout(() => {
                      timedOut = true;
                      controller.abort();
                  }, timeoutMs)
                : undefined;
        const onAbort = () => controller.abort();
        if (spec.signal) {
            if (spec.signal.aborted) controller.abort();
            else spec.signal.addEventListener('abort', onAbort, { once: true });
        }
        const init: RequestInit & { duplex?: 'half' } = {
            method: spec.method,
            headers: this.headers(spec),
            body: spec.json !== undefined ? JSON.stringify(spec.json) : spec.body,
            signal: controller.signal,
        };
        if (spec.streaming) init.duplex = 'half';
        try {
            let res: Response;
            try {
                res = await this.fetchImpl(spec.url, init).catch((e: unknown) => {
                    if (timedOut || controller.signal.aborted || !sentAgainOnReset(spec, e)) throw e;
                    return this.fetchImpl(spec.url, init);
                });
            } catch (e) {
                const why = timedOut
                    ? `timed out after ${timeoutMs} ms`
                    : spec.signal?.aborted
                      ? 'aborted'
                      : describeNetworkError(e, spec.url);
                throw new AplApiError(0, `${spec.method} ${spec.url}: ${why}`, spec.method, spec.url);
            }
            const traceId = res.headers.get('x-axiom-trace-id') ?? undefined;
            if (!res.ok) throw await errorFromResponse(res, spec, traceId);
            if (res.status === 204) return undefined as T;
            const text = await res.text();
            if (text === '') return undefined as T;
            try {
                return JSON.parse(text) as T;
            } catch {
                throw new AplApiError(res.status, `${spec.method} ${spec.url}: the response is not JSON: ${text.slice(0, 200)}`, spec.method, spec.url, traceId, text);
            }
        } catch (e) {
            if (e instanceof AplApiError) throw e;
            throw new AplApiError(0, `${spec.method} ${spec.url}: ${timedOut ? `timed out after ${timeoutMs} ms` : describeNetworkError(e, spec.url)}`, spec.method, spec.url);
        } finally {
            if (timer) clearTimeout(timer);
            spec.signal?.removeEventListener('abort', onAbort);
        }
    }
}

/** OpenSSL's answers when what came back is not TLS at all (a plain-HTTP server). */
const NOT_TLS = new Set(['ERR_SSL_WRONG_VERSION_NUMBER', 'ERR_SSL_PACKET_LENGTH_TOO_LONG', 'ERR_SSL_HTTP_REQUEST', 'EPROTO']);

function describeNetworkError(e: unknown, url: string): string {
    const err = e as Error & { cause?: { code?: string; message?: string } };
    const cause = err.cause;
    if (cause?.code !== undefined && NOT_TLS.has(cause.code) && /^https:/i.test(url)) {
        // `apl serve` speaks plain HTTP: an https:// URL meets it with a TLS handshake it does not answer.
        const origin = new URL(url);
        return `the service speaks plain HTTP, not HTTPS: use http://${origin.host}`;
    }
    if (cause?.code === 'ECONNREFUSED') return 'connection refused (is the service running?)';
    if (cause?.code === 'ENOTFOUND') return 'host not found';
    if (cause?.code) return `${cause.code}${cause.message ? `: ${cause.message}` : ''}`;
    if (cause?.message) return cause.message;
    return err.message ?? String(e);
}

async function errorFromResponse(res: Response, spec: RequestSpec, traceId: string | undefined): Promise<AplApiError> {
    let text = '';
    try {
        text = await res.text();
    } catch {
        // keep ''
    }
    let body: unknown = text;
    let message = '';
    if (text) {
        try {
            body = JSON.parse(text);
            const m = (body as { message?: unknown } | null)?.message;
            if (typeof m === 'string') message = m;
        } catch {
            message = text.slice(0, 500);
        }
    }
    if (!message) message = res.statusText || `Unknown ${res.status} error`;
    return new AplApiError(res.status, message, spec.method, spec.url, traceId, body);
}

function toBody(data: IngestBody): { body: RequestBody; streaming: boolean } {
    if (typeof data === 'string' || data instanceof Uint8Array || data instanceof ArrayBuffer || data instanceof Blob) {
        return { body: data as RequestBody, streaming: false };
    }
    if (typeof (data as ReadableStream<Uint8Array>).getReader === 'function') {
        return { body: data as unknown as RequestBody, streaming: true };
    }
    const web = Readable.toWeb(Readable.from(data as AsyncIterable<Uint8Array>));
    return { body: web as unknown as RequestBody, streaming: true };
}
