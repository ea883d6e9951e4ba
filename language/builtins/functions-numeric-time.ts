/**
 * Part 2 of the scalar-function catalogue: mathematical (with the set functions), rounding, datetime,
 * IP and GenAI functions. Each category lives in its own `functions-numeric-time-*.ts` file; this module
 * collects them and re-exports the helpers other components reuse (the `bin_auto` rule, `bin`, IP parsing).
 */
import type { ScalarFunction } from './catalogue-types.js';
import { DATETIME_FUNCTIONS } from './functions-numeric-time-datetime.js';
import { GENAI_FUNCTIONS } from './functions-numeric-time-genai.js';
import { IP_FUNCTIONS } from './functions-numeric-time-ip.js';
import { MATH_FUNCTIONS } from './functions-numeric-time-math.js';
import { ROUNDING_FUNCTIONS } from './functions-numeric-time-rounding.js';

export const FUNCTIONS: ScalarFunction[] = [
    ...MATH_FUNCTIONS,
    ...ROUNDING_FUNCTIONS,
    ...DATETIME_FUNCTIONS,
    ...IP_FUNCTIONS,
    ...GENAI_FUNCTIONS,
];

export { AUTO_BIN_DEFAULT_RANGE, AUTO_BIN_SIZES, AUTO_BIN_TARGET_BUCKETS, autoBinSize, autoBinSizeFor, binValue } from './functions-numeric-time-rounding.js';
export { DATETIME_ADD_PART_NAMES, DATETIME_DIFF_PART_NAMES, DATETIME_PART_NAMES, datetimeAdd, datetimeDiff, datetimePart } from './functions-numeric-time-datetime.js';
export { IPV4_PRIVATE_RANGES, parseIpv4, parseIpv6, formatIpv4Address } from './functions-numeric-time-ip.js';
export { GENAI_PRICING, lookupModelPricing, estimateTokens } from './functions-numeric-time-genai.js';
export { RANGE_MAX_ELEMENTS, roundHalfAwayFromZero } from './functions-numeric-time-math.js';
