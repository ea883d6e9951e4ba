/**
 * APL_START_TRACE=1: start-up milestones on stderr, for measuring (issue 31): ms since the process
 * started and, where node has `process.threadCpuUsage` (≥ 23.9), this thread's CPU ms so far.
 */
const on = process.env.APL_START_TRACE === '1';
const threadCpu = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;

export function startTrace(what: string): void {
    if (!on) return;
    const cpu = threadCpu ? threadCpu() : undefined;
    process.stderr.write(`[trace] ${performance.now().toFixed(0)}${cpu ? ` cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)}` : ''} ${what}\n`);
}
