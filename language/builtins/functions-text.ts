import type { ScalarFunction } from './catalogue-types.js';

export const FUNCTIONS: ScalarFunction[] = [];
