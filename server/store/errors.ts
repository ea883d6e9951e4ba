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
 * Dataset names: 1–128 characters of ASCII letters, digits, `-`, `_` and `.`, starting and ending
 * with a letter or digit. The brief asks for letters, digits and `-`; API.md §2 (go client doc)
 * also allows `.` and `_`, so both are accepted. The first/last-character rule keeps `.`/`..` and
 * hidden files impossible, so a name is always a safe directory name.
 */
const NAME_RE = /^[A-Za-z0-9](?:[A-Za-z0-9._-]{0,126}[A-Za-z0-9])?$/;

export function validateDatasetName(name: unknown): asserts name is string {
    if (typeof name !== 'string' || !NAME_RE.test(name)) {
        throw new StoreError(
            'invalid_name',
            `invalid dataset name ${JSON.stringify(name)}: use 1-128 ASCII letters, digits, '-', '_' or '.', starting and ending with a letter or digit`,
        );
    }
}
