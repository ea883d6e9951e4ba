import { readFileSync } from 'node:fs';

/**
 * APL_START_TRACE=1: start-up milestones on stderr, for measuring (issue 31): ms since the process
 * started and this thread's CPU ms so far (`process.threadCpuUsage` on node ≥ 23.9, else Linux's
 * /proc/thread-self/stat; none elsewhere).
 */
const on = process.env.APL_START_TRACE === '1';
const threadCpu = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage;

function cpuMs(): number | undefined {
    if (threadCpu) {
        const c = threadCpu();
        return (c.user + c.system) / 1000;
    }
    try {
        const f = readFileSync('/proc/thread-self/stat', 'utf8').split(') ')[1]!.split(' ');
        return (Number(f[11]) + Number(f[12])) * 10; // clock ticks of 10 ms
    } catch {
        return undefined;
    }
}

export function startTrace(what: string): void {
    if (!on) return;
    const cpu = cpuMs();
    process.stderr.write(`[trace] ${performance.now().toFixed(0)}${cpu === undefined ? '' : ` cpu ${cpu.toFixed(0)}`} ${what}\n`);
}
