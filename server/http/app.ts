/**
 * The Dataset Query and Ingest Service: `createService(options) → {url, close()}`.
 *
 * One fastify instance over one data directory: the durable store (server/store) and ONE
 * in-memory engine fed from it (data-plane.ts). Routes live one concern per file (routes-*.ts); auth,
 * errors and paging helpers likewise. Every content type is read as raw bytes (ingest needs them,
 * JSON routes parse them in body.ts), so fastify never pre-parses a body.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import * as path from 'node:path';
import { openStore, type Store, type StoreOptions } from '../store/store.js';
import { ensureDir, readJsonIfExists, writeFileAtomic } from '../store/fsutil.js';
import { Authenticator, authHook, type TokenSpec } from './auth.js';
import { DataPlane } from './data-plane.js';
import { createEngineAdapter } from './engine-adapter.js';
import { installErrorHandlers, sendError } from './errors.js';
import { drainRefusedBodies } from './refused-body.js';
import { readRawBody } from './body.js';
import { DEFAULT_MAX_RESULT_ROWS } from './paging.js';
import { registerDatasetRoutes } from './routes-datasets.js';
import { registerIngestRoutes } from './routes-ingest.js';
import { DEFAULT_MAX_BODY_BYTES } from '../ingest/decode-body.js';
import { registerQueryRoutes } from './routes-query.js';
import { registerUserRoutes, type LocalUser } from './routes-user.js';
import type { Annotation } from '../../language/api/index.js';
import { detachDataset, reconcileAnnotations, registerAnnotationRoutes } from './routes-annotations.js';
import { registerMonitorRoutes, type StoredMonitor } from './routes-monitors.js';
import { registerUnavailableRoutes } from './routes-unavailable.js';
import { dataPlaneSchema, ServiceAplChecker } from './apl-check.js';
import { JsonCollection } from '../store/json-collection.js';
import { loadSamples, DEFAULT_SAMPLE_ROWS } from './samples.js';
import { defaultMemoryLimit, memoryPlan } from './cold-tier.js';
import { listenEarly, serviceHttpServer, type EarlyServer } from './early-server.js';
import { BODY_IDLE_TIMEOUT_MS, defaultMaxConnections } from './connection-guard.js';
import { startTrace } from '../start-trace.js';

export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_PORT = 8686;
export { DEFAULT_MAX_BODY_BYTES };
export const DEFAULT_DATA_DIR = './.apl-data';
/** How long stopping the service waits for in-flight requests (ingests) before cutting them off. */
const CLOSE_GRACE_MS = 5000;

export interface ServiceOptions {
    /** Data directory (created if missing). Default `APL_DATA_DIR` or `./.apl-data`. */
    dataDir?: string;
    /** Default 127.0.0.1 (loopback only). */
    host?: string;
    /** Default 8686; 0 picks a free port. */
    port?: number;
    /**
     * Accepted API tokens (plaintext, never written to disk), e.g. from `--token` / `AXIOM_TOKEN` (or `APL_TOKEN`).
     * Tokens stored hashed in the data directory are accepted too. When neither exists, a token is
     * generated on start and returned once in `generatedToken`.
     */
    tokens?: readonly (string | TokenSpec)[];
    /** Bound on an ingest body AFTER decompression (413 above it). Default 64 MiB. */
    maxBodyBytes?: number;
    /** Load the sample datasets on the first start of a data directory. Default true. */
    samples?: boolean;
    /** Events per sample dataset (default 10,000). */
    sampleRows?: number;
    /** Server maximum rows per query result page. Default 50,000. */
    maxResultRows?: number;
    /** Diagnostics (default: stderr). */
    log?: (msg: string) => void;
    /** Passed to openStore (compaction thresholds, worker use, …). */
    store?: StoreOptions;
    /** Worker threads that parse ingest bodies (0 = parse on the main thread). Default min(2, CPUs). */
    ingestWorkers?: number;
    /** Distinct fields a dataset may have; an ingest that would pass it is refused (400). Default 4,096. */
    maxFieldsPerDataset?: number;
    /** Heap bound of each ingest worker thread (MB); default Node's. */
    ingestWorkerHeapMb?: number;
    /** Worker threads that run queries (server/query). Default one per core; 0 runs them on the main thread. */
    queryWorkers?: number;
    /** Datasets of at least this many rows are scanned by every idle query worker at once (default 2,000,000). */
    parallelMinRows?: number;
    /**
     * Bytes the service may hold in memory (server/http/cold-tier.ts): datasets that do not fit keep
     * their blocks on disk and queries read them. Default half of the machine's memory; `Infinity`
     * holds every dataset in memory whatever its size.
     */
    memoryLimit?: number;
    /** Time limit of one query in ms (default 60 s). */
    queryTimeoutMs?: number;
    /** Longest APL query text accepted (default DEFAULT_MAX_QUERY_LENGTH); longer ones get 413. */
    maxQueryLength?: number;
    /** Open connections at most; at the cap the longest-idle one makes room, else a new one gets 503 (default 1,024, less under a low descriptor limit). */
    maxConnections?: number;
    /** For tests: awaited after each part of a dataset's background load (see DataPlaneOptions). */
    afterLoadPart?: (dataset: string, part: number) => Promise<void> | void;
}

export interface Service {
    /** `http://host:port`, no path: what the clients' `url` option takes. */
    url: string;
    host: string;
    port: number;
    dataDir: string;
    /** The plaintext of a token generated on this start (shown once), if any. */
    generatedToken?: string;
    /** True when this start created the data directory's service state. */
    firstStart: boolean;
    /** Sample datasets loaded on this start. */
    samplesLoaded: string[];
    /** The datasets and events on disk at start (metadata: they load into the engine after listening). */
    recovered: { datasets: number; events: number };
    /** Settles when the stored datasets are in the engine: what was loaded (damaged ones are not). */
    loaded: Promise<{ datasets: number; events: number }>;
    app: FastifyInstance;
    data: DataPlane;
    close(): Promise<void>;
}

interface ServiceState {
    v: 1;
    created: string;
    userId: string;
    samplesLoaded: boolean;
}

export function resolveDataDir(dir?: string): string {
    return path.resolve(dir ?? process.env.APL_DATA_DIR ?? DEFAULT_DATA_DIR);
}

export async function createService(options: ServiceOptions = {}): Promise<Service> {
    const log = options.log ?? ((m: string) => process.stderr.write(`[apl serve] ${m}\n`));
    const dataDir = resolveDataDir(options.dataDir);
    const host = options.host ?? DEFAULT_HOST;
    const port = options.port ?? DEFAULT_PORT;
    const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    const maxResultRows = options.maxResultRows ?? DEFAULT_MAX_RESULT_ROWS;
    if (!Number.isInteger(maxBodyBytes) || maxBodyBytes <= 0) throw new Error(`maxBodyBytes must be a positive integer, got ${maxBodyBytes}`);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`port must be an integer between 0 and 65535, got ${port}`);

    const maxConnections = options.maxConnections ?? defaultMaxConnections();
    if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new Error(`maxConnections must be a positive integer, got ${maxConnections}`);

    // The server listens first, answering 503 "starting" until the app is ready (early-server.ts): a
    // busy port is found before anything is written (no data directory, token or samples for a
    // start that cannot listen), and a client that connects meanwhile gets an answer.
    startTrace('createService');
    const early = await listenEarly(host, port, maxConnections);
    startTrace('listening early');
    let store: Store;
    try {
        await ensureDir(dataDir);
        store = await openStore(dataDir, { log, ...options.store, maxBodyBytes });
    } catch (err) {
        await early.close();
        throw err;
    }
    startTrace('store open');
    // The first start's token, until the service listens: a start that fails (a busy port) takes
    // it back, so that the next start generates and prints one again.
    let generated: { token: string; info: { id: string } } | undefined;
    let engineToClose: { close(): Promise<void> } | undefined;
    let dataToClose: { close(): Promise<void> } | undefined;
    let appToClose: FastifyInstance | undefined;
    try {
        const statePath = path.join(dataDir, 'service.json');
        let state = await readJsonIfExists<ServiceState>(statePath);
        const firstStart = !state;
        if (!state) {
            state = { v: 1, created: new Date().toISOString(), userId: randomUUID(), samplesLoaded: false };
            await writeFileAtomic(statePath, JSON.stringify(state, null, 1));
        }

        const configured = (options.tokens ?? []).filter((t) => (typeof t === 'string' ? t : t.token).length > 0);
        let generatedToken: string | undefined;
        const unreadable = store.tokens.unreadable;
        if (unreadable !== undefined) {
            // Fail closed: none of its tokens is accepted, and it is never overwritten (generating a
            // token would). Without a token from --token/AXIOM_TOKEN nobody could use the server.
            if (configured.length === 0) {
                throw new Error(`${unreadable}. Repair or remove ${store.tokens.path}, or start with --token (or AXIOM_TOKEN) to serve with that token only`);
            }
            log(`${unreadable}; serving with the --token/AXIOM_TOKEN token(s) only`);
        } else if (configured.length === 0 && store.tokens.size === 0) {
            generated = await store.tokens.createToken('generated at first start');
            generatedToken = generated.token;
        }

        const memoryLimit = options.memoryLimit ?? defaultMemoryLimit();
        const bounded = Number.isFinite(memoryLimit);
        const plan = bounded ? memoryPlan(memoryLimit) : undefined;
        const datasetsDir = path.join(store.dir, 'datasets');
        const engine = createEngineAdapter({
            maxResultRows,
            queryWorkers: options.queryWorkers,
            queryTimeoutMs: options.queryTimeoutMs,
            parallelMinRows: options.parallelMinRows,
            datasetsDir,
            coldCacheBytes: plan?.coldCacheBytes,
            workerYoungMb: plan?.workerYoungMb,
            log,
        });
        engineToClose = engine;
        const data = new DataPlane(store, engine, {
            maxBodyBytes, log, ingestWorkers: options.ingestWorkers, maxFieldsPerDataset: options.maxFieldsPerDataset, ingestWorkerHeapMb: options.ingestWorkerHeapMb, afterLoadPart: options.afterLoadPart,
            memoryLimit: bounded ? memoryLimit : undefined,
            datasetsDir,
        });
        dataToClose = data;
        // Metadata only: the events go into the engine after listening (loadInBackground below).
        startTrace('engine+dataplane made');
        const recovered = await data.recover();
        startTrace('recovered');
        // With no query workers, load the parser and evaluator now, so the first user query is not
        // the slow one. With workers, right after listening (below).
        if (!engine.queryStats()) await engine.warmUp();

        const samplesLoaded: string[] = [];
        if (!state.samplesLoaded && options.samples !== false) {
            samplesLoaded.push(...(await loadSamples(data, { rows: options.sampleRows ?? DEFAULT_SAMPLE_ROWS, who: state.userId })));
        }
        if (!state.samplesLoaded) {
            // Whether loaded or declined, the first start decides: deleted samples stay deleted.
            state = { ...state, samplesLoaded: true };
            await writeFileAtomic(statePath, JSON.stringify(state, null, 1));
        }

        // Annotations and monitors: one file each in the data directory (see server/store/json-collection.ts).
        const annotations = await JsonCollection.open<Annotation>(dataDir, 'annotations', { log });
        await reconcileAnnotations(annotations, (name) => data.hasDataset(name));
        data.onDatasetDeleted((name) => detachDataset(annotations, name));
        const monitors = await JsonCollection.open<StoredMonitor>(dataDir, 'monitors', { log });

        const user: LocalUser = { id: state.userId, name: 'Local User', email: 'local@localhost', created: state.created };
        const app = buildApp({ data, auth: new Authenticator(configured, store.tokens), user, maxBodyBytes, maxResultRows, log, annotations, monitors, maxQueryLength: options.maxQueryLength, maxConnections, server: early });
        appToClose = app;
        startTrace('app built');
        await app.ready();
        early.open();
        startTrace('listening');
        // Requests that need a dataset's events wait for its load; the lists answer meanwhile.
        const started = performance.now();
        const loaded = data.loadInBackground();
        // The query workers start once the datasets' views from disk are in (loadInBackground), and
        // until one has, queries run on this thread (pool.ts, whileStarting): it builds its parser
        // while those views are read and their WAL tails parsed on the ingest workers, rather than
        // when the first query comes; after the first answer (a client polling the port gets it at
        // once) or once the views are in, whichever comes first.
        if (engine.queryStats()) {
            let warming = false;
            const warmUp = (): void => {
                if (warming) return;
                warming = true;
                setImmediate(() => void engine.warmUp());
            };
            app.server.once('request', (_req: unknown, res: ServerResponse) => res.once('finish', warmUp));
            if (recovered.datasets > 0) void data.allReadable().then(warmUp, () => undefined);
        }
        void loaded.then((r) => {
            if (recovered.datasets > 0) log(`loaded ${r.events} events of ${r.datasets} dataset(s) into memory in ${Math.round(performance.now() - started)} ms`);
        }, () => undefined);
        const addr = app.server.address();
        const boundPort = typeof addr === 'object' && addr ? addr.port : port;
        const urlHost = host.includes(':') ? `[${host}]` : host === '0.0.0.0' ? '127.0.0.1' : host;
        let closing: Promise<void> | undefined;
        return {
            url: `http://${urlHost}:${boundPort}`,
            host,
            port: boundPort,
            dataDir,
            generatedToken,
            firstStart,
            samplesLoaded,
            recovered,
            loaded,
            app,
            data,
            close: () =>
                (closing ??= (async () => {
                    try {
                        // Requests still waiting for a dataset's load get 503 instead of hanging.
                        void data.stopLoading();
                        // Stop accepting; running queries fail at once (503), in-flight ingests finish
                        // (each is acknowledged only once durable), and whatever still hangs after
                        // CLOSE_GRACE_MS is cut off.
                        // fastify closes a server only when its own listen() opened it: this one, early.
                        const stopped = Promise.all([app.close(), closeServer(app.server)]);
                        await engine.close();
                        const cutoff = setTimeout(() => app.server.closeAllConnections(), CLOSE_GRACE_MS);
                        try {
                            await stopped;
                        } finally {
                            clearTimeout(cutoff);
                        }
                    } finally {
                        await data.close();
                    }
                })()),
        };
    } catch (err) {
        // Query workers would keep the process alive after a failed start.
        await engineToClose?.close().catch(() => undefined);
        await appToClose?.close().catch(() => undefined);
        await early.close();
        if (generated) await store.tokens.deleteToken(generated.info.id).catch(() => undefined);
        await dataToClose?.close().catch(() => undefined);
        await store.close().catch(() => undefined);
        throw err;
    }
}

/**
 * Stops listening: new connections are refused, idle kept-alive ones closed (fastify's
 * `forceCloseConnections: 'idle'` applies only to a server its listen() opened).
 */
function closeServer(server: FastifyInstance['server']): Promise<void> {
    return new Promise<void>((resolve) => {
        if (!server.listening) return resolve();
        server.close(() => resolve());
        server.closeIdleConnections();
    });
}

export interface AppDeps {
    data: DataPlane;
    auth: Authenticator;
    user: LocalUser;
    maxBodyBytes: number;
    maxResultRows: number;
    log: (msg: string) => void;
    annotations: JsonCollection<Annotation>;
    monitors: JsonCollection<StoredMonitor>;
    maxQueryLength?: number;
    /** Open connections at most (connection-guard.ts); default from the descriptor limit. */
    maxConnections?: number;
    /** The server, already listening (createService); absent: fastify's own (tests that `inject`). */
    server?: EarlyServer;
}

/**
 * While a request's body is being received, a socket with no bytes for `ms` is closed: a stalled
 * upload cannot hold its connection, a slow one that keeps sending is never cut off. Cleared once
 * the body is in (preHandler), so that a long query is not cut off while it computes.
 */
function bodyIdleTimeout(app: FastifyInstance, ms: number): void {
    // No listener on the socket's 'timeout': Node's HTTP server then destroys the socket.
    app.addHook('onRequest', async (req) => void req.raw.socket.setTimeout(ms));
    app.addHook('preHandler', async (req) => void req.raw.socket.setTimeout(0));
}

/** The fastify app with every route, not yet listening (tests may `inject`). */
export function buildApp(deps: AppDeps): FastifyInstance {
    // The wire limit: a compressed body is smaller than its decompressed form except for
    // incompressible data (gzip/zstd add well under 1%); the exact bound is applied after decoding.
    const bodyLimit = deps.maxBodyBytes + Math.ceil(deps.maxBodyBytes / 64) + 65536;
    const maxConnections = deps.maxConnections ?? defaultMaxConnections();
    if (!Number.isInteger(maxConnections) || maxConnections < 1) throw new Error(`maxConnections must be a positive integer, got ${maxConnections}`);
    const app = Fastify({
        logger: false, bodyLimit, forceCloseConnections: 'idle', routerOptions: { maxParamLength: 1024 },
        // The router's own refusals (a path parameter past maxParamLength, a bad URL) as our error body,
        // which caps how much of the path it echoes.
        frameworkErrors: (err, _req, reply) => sendError(reply, err),
        serverFactory: (handler) => {
            if (deps.server) return deps.server.factory(handler);
            return serviceHttpServer(handler, maxConnections);
        },
    });
    bodyIdleTimeout(app, BODY_IDLE_TIMEOUT_MS);
    app.removeAllContentTypeParsers();
    app.addContentTypeParser('*', (req, payload, done) => readRawBody(req, payload, done));
    installErrorHandlers(app, deps.log);
    drainRefusedBodies(app);
    app.addHook('onRequest', authHook(deps.auth));
    registerUserRoutes(app, deps.user);
    registerDatasetRoutes(app, { data: deps.data, userId: deps.user.id });
    registerIngestRoutes(app, deps.data);
    registerQueryRoutes(app, { data: deps.data, maxResultRows: deps.maxResultRows, maxQueryLength: deps.maxQueryLength });
    registerAnnotationRoutes(app, { data: deps.data, annotations: deps.annotations });
    registerMonitorRoutes(app, { monitors: deps.monitors, checker: new ServiceAplChecker(dataPlaneSchema(deps.data)), userId: deps.user.id });
    registerUnavailableRoutes(app);
    return app;
}
