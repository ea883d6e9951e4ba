import { datasetNameProblem } from '../../language/dataset-name.js';
/** Typed store errors; `status` is the HTTP status the service should answer with. */
export type StoreErrorCode = 'invalid_name' | 'not_found' | 'exists' | 'closed' | 'invalid_argument' | 'unavailable' | 'disk_full' | 'read_only' | 'too_many_fields';

export type StoreErrorStatus = 400 | 404 | 409 | 423 | 503 | 507;

/**
 * `unavailable` (a dataset whose files could not be opened) is 423: the problem is on the server
 * but retrying does not help until someone repairs the files, and clients retry every 5xx.
 * `disk_full` is 507 Insufficient Storage: worth retrying once space is freed. `read_only` (a
 * read-only file system, or a directory the process may not write) is 507 too: the service cannot
 * store anything until an operator fixes the mount or the permissions, which a 500 would hide.
 */
const STATUS: Record<StoreErrorCode, StoreErrorStatus> = {
    invalid_name: 400,
    not_found: 404,
    exists: 409,
    closed: 503,
    invalid_argument: 400,
    unavailable: 423,
    disk_full: 507,
    read_only: 507,
    too_many_fields: 400,
};

export class StoreError extends Error {
    override readonly name = 'StoreError';
    readonly status: StoreErrorStatus;
    constructor(
        readonly code: StoreErrorCode,
        message: string,
    ) {
        super(message);
        this.status = STATUS[code];
    }
}

/** A dataset directory that cannot be opened; the message names the file. Its files are kept. */
export class DatasetOpenError extends Error {
    override readonly name = 'DatasetOpenError';
}

/** The error a write that hit a full disk becomes (507), saying so in words. */
export function diskFullError(what: string, err: unknown): StoreError {
    const code = (err as NodeJS.ErrnoException | null)?.code ?? 'ENOSPC';
    return new StoreError('disk_full', `insufficient storage: the disk holding the data directory is full (${code}) while ${what}; nothing of this request was stored, and what was stored before is intact`);
}

/** The error a write refused by a read-only data directory becomes (507), saying so in words. */
export function readOnlyError(what: string, err: unknown): StoreError {
    const code = (err as NodeJS.ErrnoException | null)?.code ?? 'EROFS';
    return new StoreError('read_only', `insufficient storage: the data directory is read-only (${code}) while ${what}; nothing of this request was stored (make the data directory writable and retry)`);
}

/**
 * Dataset names follow the service spec (section 2.1): 1–128 ASCII letters, digits and `-`
 * (`language/dataset-name.ts`). Such a name is always a safe directory name.
 */
export function validateDatasetName(name: unknown): asserts name is string {
    if (typeof name !== 'string') throw new StoreError('invalid_name', `invalid dataset name ${JSON.stringify(name)}: a name must be a string`);
    const problem = datasetNameProblem(name);
    if (problem !== undefined) throw new StoreError('invalid_name', `invalid ${problem}`);
    // API.md §2 (go's DatasetCreateRequest): no leading or trailing special character.
    if (!/^[A-Za-z0-9]/.test(name) || !/[A-Za-z0-9]$/.test(name)) {
        throw new StoreError('invalid_name', `invalid dataset name '${name}': it must start and end with an ASCII letter or digit`);
    }
}
