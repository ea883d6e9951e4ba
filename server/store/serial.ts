/** Runs async tasks one after another (file rewrites that must not interleave); a failed task does not stop the next. */
export class SerialQueue {
    private tail: Promise<void> = Promise.resolve();

    run<T>(task: () => Promise<T>): Promise<T> {
        const done = this.tail.then(task);
        this.tail = done.then(
            () => undefined,
            () => undefined,
        );
        return done;
    }
}
