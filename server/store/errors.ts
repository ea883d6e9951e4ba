import { datasetNameProblem } from '../../language/dataset-name.js';
/** Typed store errors; `status` is the HTTP status the service should answer with. */
export type StoreErrorCode = 'invalid_name' | 'not_found' | 'exists' | 'closed' | 'invalid_argument';

const STATUS: Record<StoreErrorCode, 400 | 404 | 409 | 503> = {
    invalid_name: 400,
    not_found: 404,
    exists: 409,
    closed: 503,
    invalid_argument: 400,
};

export class StoreError extends Error {
    override readonly name = 'StoreError';
    readonly status: 400 | 404 | 409 | 503;
    constructor(
        readonly code: StoreErrorCode,
        message: string,
    ) {
        super(message);
        this.status = STATUS[code];
    }
}

/**
 * Dataset names follow the service spec (section 2.1): 1–128 ASCII letters, digits and `-`
 * (`language/dataset-name.ts`). Such a name is always a safe directory name.
 */
export function validateDatasetName(name: unknown): asserts name is string {
    if (typeof name !== 'string') throw new StoreError('invalid_name', `invalid dataset name ${JSON.stringify(name)}: a name must be a string`);
    const problem = datasetNameProblem(name);
    if (problem !== undefined) throw new StoreError('invalid_name', `invalid ${problem}`);
}
