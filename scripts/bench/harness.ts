/**
 * Shared machinery of `npm run bench`: timing (warm-ups, medians), garbage collection, memory
 * deltas, optional imports of components that may not exist yet, and the row/section shapes the
 * runner prints.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';

/** One line of a section's table. */
export interface Row {
    name: string;
    /** Our figure, formatted with its unit. */
    ours: string;
    /** The baseline's figure (or '—' for an absolute bar). */
    baseline: string;
    /** ours / baseline in the direction stated by `bar` (null when there is no baseline). */
    ratio: number | null;
    /** The bar, as text: `≤ 1.0×`, `≤ 20 ms`. */
    bar: string;
    /** Whether the bar is met (null: informational, no bar). */
    pass: boolean | null;
}

export interface SectionResult {
    rows: Row[];
    /** Extra lines printed under the table: warnings, skipped rows, context. */
    notes: string[];
}

export interface BenchContext {
    /** `--quick`: smaller sizes, fewer runs. */
    quick: boolean;
    /** `--scale N`: the number of events of the volume section (off without it). */
    scale?: number;
    /** Progress output (stderr), so the tables stay readable. */
    log(message: string): void;
}

export type Section = (ctx: BenchContext) => Promise<SectionResult>;

/** Thrown by a section (or a helper) when its component is not available; the runner prints "skipped: <reason>". */
export class Skip extends Error {}

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A path under the project root. */
export function projectPath(relative: string): string {
    return fileURLToPath(new URL(relative, pathToFileURL(ROOT)));
}

/**
 * Imports a project module that may not exist yet (it is being written by someone else). The
 * specifier is computed so the type checker does not require the file; callers describe the
 * shape they use. Throws `Skip` when the file is missing or does not load.
 */
export async function importOptional<T>(relative: string, what: string): Promise<T> {
    const file = projectPath(relative);
    if (!existsSync(file)) throw new Skip(`${what} (${relative}) is not there yet`);
    try {
        return (await import(pathToFileURL(file).href)) as T;
    } catch (err) {
        throw new Skip(`${what} (${relative}) does not load: ${firstLine(err)}`);
    }
}

export function firstLine(err: unknown): string {
    const text = err instanceof Error ? err.message : String(err);
    return text.split('\n')[0]!;
}

// ---------------------------------------------------------------------------------------------
// Garbage collection and memory

let gcFn: (() => void) | undefined;

/**
 * `global.gc` if the process runs with `--expose-gc`; otherwise the flag is set at run time and
 * the function fetched from a fresh context (V8 installs `gc` on contexts created after the flag
 * is set). No npm-script change is needed.
 */
export function gc(): void {
    if (!gcFn) {
        const g = (globalThis as { gc?: () => void }).gc;
        if (typeof g === 'function') gcFn = g;
        else {
            try {
                setFlagsFromString('--expose-gc');
                gcFn = runInNewContext('gc') as () => void;
            } catch {
                gcFn = () => {};
            }
        }
    }
    gcFn();
}

export function gcAvailable(): boolean {
    gc();
    return gcFn !== undefined && gcFn.toString() !== (() => {}).toString();
}

/** Full collections until the heap stops shrinking (at most 4), so RSS readings settle. */
export function settle(): void {
    let last = Infinity;
    for (let i = 0; i < 4; i++) {
        gc();
        const used = process.memoryUsage().heapUsed;
        if (used >= last * 0.99) break;
        last = used;
    }
}

/**
 * `settle()`, then waits until RSS stops falling (at most 2 s): V8 hands freed heap pages back to
 * the OS on a background thread after a collection, so a reading right after `gc()` still counts
 * pages about to go.
 */
export async function settleRss(): Promise<void> {
    settle();
    let last = process.memoryUsage().rss;
    for (let i = 0; i < 40; i++) {
        await new Promise(r => setTimeout(r, 50));
        gc();
        const rss = process.memoryUsage().rss;
        if (last - rss < 1 << 20) return;
        last = rss;
    }
}

export interface MemorySample {
    rss: number;
    heapUsed: number;
    external: number;
    arrayBuffers: number;
}

export function memory(): MemorySample {
    const m = process.memoryUsage();
    return { rss: m.rss, heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers };
}

// ---------------------------------------------------------------------------------------------
// Timing

export interface TimeOptions {
    /** Untimed runs first (default 2). */
    warmup?: number;
    /** Timed runs (default 5, never fewer than 5). */
    runs?: number;
    /** Collect garbage before each timed run (default true). */
    gcBetween?: boolean;
}

export interface Timing {
    /** Median of the timed runs, ms. */
    median: number;
    min: number;
    max: number;
    runs: number[];
}

/** Times `fn` with `performance.now()`: warm-ups, then ≥5 timed runs; returns the median. */
export async function time(fn: () => unknown, options: TimeOptions = {}): Promise<Timing> {
    const warmup = options.warmup ?? 2;
    const runs = Math.max(5, options.runs ?? 5);
    for (let i = 0; i < warmup; i++) await fn();
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
        if (options.gcBetween ?? true) gc();
        const t0 = performance.now();
        await fn();
        samples.push(performance.now() - t0);
    }
    return summarize(samples);
}

/**
 * Times two contenders the same way, alternating their runs (a b a b …) so that both see the same
 * machine conditions; ratios stay meaningful on a busy machine even when absolute times do not.
 */
export async function timePair(a: () => unknown, b: () => unknown, options: TimeOptions = {}): Promise<[Timing, Timing]> {
    const warmup = options.warmup ?? 2;
    const runs = Math.max(5, options.runs ?? 5);
    for (let i = 0; i < warmup; i++) {
        await a();
        await b();
    }
    const sa: number[] = [];
    const sb: number[] = [];
    for (let i = 0; i < runs; i++) {
        for (const [fn, out] of (i % 2 ? [[b, sb], [a, sa]] : [[a, sa], [b, sb]]) as [() => unknown, number[]][]) {
            if (options.gcBetween ?? true) gc();
            const t0 = performance.now();
            await fn();
            out.push(performance.now() - t0);
        }
    }
    return [summarize(sa), summarize(sb)];
}

export function summarize(samples: number[]): Timing {
    const sorted = [...samples].sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    const median = sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
    return { median, min: sorted[0]!, max: sorted[sorted.length - 1]!, runs: samples };
}

// ---------------------------------------------------------------------------------------------
// Formatting

export function fmtMs(ms: number): string {
    if (ms >= 10_000) return `${(ms / 1000).toFixed(1)} s`;
    if (ms >= 100) return `${ms.toFixed(0)} ms`;
    if (ms >= 1) return `${ms.toFixed(1)} ms`;
    return `${(ms * 1000).toFixed(0)} µs`;
}

export function fmtRate(perSecond: number, unit: string): string {
    if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(2)}M ${unit}/s`;
    if (perSecond >= 1e3) return `${(perSecond / 1e3).toFixed(1)}k ${unit}/s`;
    return `${perSecond.toFixed(1)} ${unit}/s`;
}

export function fmtBytes(bytes: number): string {
    const mb = bytes / (1024 * 1024);
    return `${mb.toFixed(mb >= 100 ? 0 : 1)} MB`;
}

export function fmtRatio(r: number | null): string {
    if (r === null || !Number.isFinite(r)) return '—';
    return `${r >= 100 ? r.toFixed(0) : r >= 10 ? r.toFixed(1) : r.toFixed(2)}×`;
}

/** A row comparing two times where lower is better: ratio = ours / baseline, bar = ratio ≤ max. */
export function timeRow(name: string, ours: number, baseline: number, maxRatio: number | null, extra = ''): Row {
    const ratio = ours / baseline;
    return {
        name,
        ours: fmtMs(ours) + extra,
        baseline: fmtMs(baseline),
        ratio,
        bar: maxRatio === null ? '—' : `≤ ${maxRatio.toFixed(1)}×`,
        pass: maxRatio === null ? null : ratio <= maxRatio,
    };
}

/** A row with an absolute bar and no baseline. */
export function absoluteRow(name: string, ours: string, pass: boolean | null, bar: string, baseline = '—'): Row {
    return { name, ours, baseline, ratio: null, bar, pass };
}

export function geomean(values: number[]): number {
    return Math.exp(values.reduce((s, v) => s + Math.log(v), 0) / values.length);
}

/** `items` in arrays of `size` (the last one shorter). */
export function* inBatches<T>(items: Iterable<T>, size: number): Generator<T[]> {
    let batch: T[] = [];
    for (const item of items) {
        batch.push(item);
        if (batch.length === size) {
            yield batch;
            batch = [];
        }
    }
    if (batch.length > 0) yield batch;
}

/** Cycles `items` to exactly `n` entries. */
export function cycle<T>(items: readonly T[], n: number): T[] {
    if (items.length === 0) throw new Skip('no input texts');
    const out: T[] = [];
    for (let i = 0; i < n; i++) out.push(items[i % items.length]!);
    return out;
}
