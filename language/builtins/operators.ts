import type { ScalarOperatorEntry, TabularOperatorEntry } from './catalogue-types.js';

export const SCALAR_OPERATORS: ScalarOperatorEntry[] = [];
export const TABULAR_OPERATORS: TabularOperatorEntry[] = [];
