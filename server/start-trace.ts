/** APL_START_TRACE=1: start-up milestones on stderr, in ms since the process started (for measuring). */
const on = process.env.APL_START_TRACE === '1';
export function startTrace(what: string): void {
    if (on) process.stderr.write(`[trace] ${performance.now().toFixed(0)} ${what}\n`);
}
