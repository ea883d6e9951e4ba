/**
 * The wire contract (API.md) in one place: query results (tabular and legacy), their status, the
 * ingest status, and row ids/cursors. The engine, the service and the client all take these types
 * from here.
 */
export type * from './status.js';
export type * from './tabular.js';
export type * from './legacy.js';
export type * from './ingest.js';
export * from './annotations-monitors.js';
export * from './row-id.js';
