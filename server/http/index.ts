/**
 * The Dataset Query and Ingest Service (`apl serve`). The CLI calls `runServe(options)`; tests and
 * embedders use `createService(options)`. See docs/service.md.
 */
export { createService, buildApp, resolveDataDir, DEFAULT_DATA_DIR, DEFAULT_HOST, DEFAULT_MAX_BODY_BYTES, DEFAULT_PORT } from './app.js';
export type { Service, ServiceOptions } from './app.js';
export { runServe, banner, type ServeOptions } from './serve.js';
export { parseServeArgs } from './main.js';
export type { TokenSpec, TokenScope } from './auth.js';
/** Query worker threads for an engine used in one process (planned queries over large datasets run in parts, as `apl run` does). */
export { startParallelRunner, type InProcessParallel } from '../query/parallel-runner.js';
