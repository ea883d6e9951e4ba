import type { AggregateFunction } from './catalogue-types.js';

export const AGGREGATES: AggregateFunction[] = [];
