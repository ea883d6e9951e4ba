/**
 * Part 1 of the scalar-function catalogue: string, hash, conversion, type-check, conditional,
 * metadata, pair and SQL functions (inventory §6). The entries live in `functions-text-*.ts`;
 * this file only collects them.
 */
import type { ScalarFunction } from './catalogue-types.js';
import {
    CONDITIONAL_FUNCTIONS,
    CONVERSION_FUNCTIONS,
    HASH_FUNCTIONS,
    METADATA_FUNCTIONS,
    PAIR_FUNCTIONS,
    TYPE_CHECK_FUNCTIONS,
} from './functions-text-convert.js';
import { SQL_FUNCTIONS } from './functions-text-sql.js';
import { STRING_FUNCTIONS } from './functions-text-string.js';

export const FUNCTIONS: ScalarFunction[] = [
    ...STRING_FUNCTIONS,
    ...HASH_FUNCTIONS,
    ...CONVERSION_FUNCTIONS,
    ...TYPE_CHECK_FUNCTIONS,
    ...CONDITIONAL_FUNCTIONS,
    ...METADATA_FUNCTIONS,
    ...PAIR_FUNCTIONS,
    ...SQL_FUNCTIONS,
];
