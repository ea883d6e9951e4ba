/**
 * Ingest limits (documented in docs/service.md, "Limits"). They keep one hostile event from costing
 * the service memory or time out of proportion to its size, and they echo Axiom's own limits
 * (axiom.co/docs/reference/limits: 1,024 fields per dataset on Axiom Cloud, 4,096 on its largest
 * plan; objects nested deeper than 100 levels are not stored as such).
 */

/** Nesting of objects and arrays in one event, counting the event itself as level 1. */
export const MAX_NESTING = 100;

/** Fields of one event after flattening (labels included). */
export const MAX_FIELDS_PER_EVENT = 1024;

/** Distinct fields of one dataset (`_time` and `_sysTime` not counted). */
export const DEFAULT_MAX_FIELDS_PER_DATASET = 4096;

/** `_time` is stored as signed 64-bit nanoseconds since the Unix epoch: its range (language/values.ts). */
export { EVENT_TIME_MIN_NS as MIN_TIME_NS, EVENT_TIME_MAX_NS as MAX_TIME_NS } from '../values.js';
export const TIME_RANGE_TEXT = '1677-09-21T00:12:43.145224192Z to 2262-04-11T23:47:16.854775807Z';
