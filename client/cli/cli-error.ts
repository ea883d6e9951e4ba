/** A usage or I/O problem: the CLI prints the message (no stack trace) and exits with 2. */
export class CliError extends Error {
    constructor(message: string, readonly exitCode = 2) {
        super(message);
    }
}
