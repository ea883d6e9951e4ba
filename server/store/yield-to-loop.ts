/** Resolves on the event loop's next check phase, after the I/O callbacks waiting now: long work on the main thread calls it between slices. */
export const yieldToLoop = (): Promise<void> => new Promise<void>((r) => setImmediate(r));
