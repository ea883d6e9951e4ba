import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Script } from 'node:vm';
import { crc32 } from 'node:zlib';

/**
 * Runs a CommonJS bundle the way `require` would, but compiled with a V8 code cache.
 *
 * Why: a new language-server process spends about a fifth of its start-up compiling the 1 MB
 * bundle and then, function by function, the code it runs on the way to the first diagnostics.
 * A cache taken at the end of a warm-up session (`createCachedData` after running, so it holds
 * the lazily compiled functions too) lets V8 skip all of that. Node ≥ 22.1 has a compile cache of
 * its own (`module.enableCompileCache()`), used here when there is no cache of ours for the node
 * that runs (runWithNodeCompileCache); Node 20 has none.
 *
 * The cache is written at build time (esbuild.mjs runs a warm-up session with
 * `APL_WRITE_CODE_CACHE=1`). It is used only when it is whole (its own length and CRC-32, and
 * the node version, in its header) and was made from exactly this bundle (the
 * bundle's length and CRC-32 in its header: V8's own check looks at the source length only; a
 * CRC-32 of the bytes costs a fraction of a millisecond where loading node:crypto and a SHA-1 of
 * the text cost about 10 ms of every start) and V8 accepts it
 * (same V8 version and flags); otherwise the bundle is compiled as usual. `APL_CODE_CACHE_DEBUG=1`
 * says on stderr which of the two happened.
 */
export function runWithCodeCache(bundlePath: string, cachePath: string, options: { nodeCompileCache?: boolean } = {}): CodeCacheRun {
    const bytes = readFileSync(bundlePath);
    const source = bytes.toString('utf8');
    const sourceHash = `${bytes.length}-${crc32(bytes).toString(16)}`;
    const cachedData = readCache(cachePath, sourceHash);
    if (cachedData === undefined && options.nodeCompileCache !== false && process.env.APL_WRITE_CODE_CACHE !== '1' && runWithNodeCompileCache(bundlePath)) {
        if (process.env.APL_CODE_CACHE_DEBUG === '1') process.stderr.write(`code cache: node (${bundlePath})\n`);
        return { cache: 'node', save: () => undefined };
    }
    // `require` would strip the shebang; a `//` comment keeps every position the same for stack traces.
    const body = source.startsWith('#!') ? `//${source.slice(2)}` : source;
    const script = new Script(Module.wrap(body), { filename: bundlePath, cachedData });
    const run: CodeCacheRun = {
        cache: cachedData === undefined ? 'none' : script.cachedDataRejected === true ? 'rejected' : 'used',
        save: () => writeCache(cachePath, sourceHash, script.createCachedData()),
    };
    if (process.env.APL_CODE_CACHE_DEBUG === '1') process.stderr.write(`code cache: ${run.cache} (${cachePath})\n`);
    if (process.env.APL_WRITE_CODE_CACHE === '1') {
        process.on('exit', run.save);
        // A worker thread ended with `terminate()` gets no 'exit': it saves after its work instead
        // (saveCodeCacheNow, below).
        (globalThis as Record<symbol, unknown>)[SAVE] = run.save;
    }
    const bundle = new Module(bundlePath, undefined);
    bundle.filename = bundlePath;
    bundle.loaded = true;
    const wrapper = script.runInThisContext() as (exports: unknown, require: NodeJS.Require, module: Module, filename: string, dirname: string) => void;
    wrapper.call(bundle.exports, bundle.exports, Module.createRequire(bundlePath), bundle, bundlePath, dirname(bundlePath));
    return run;
}

/**
 * Without a cache of ours for this node (the build's caches are made by the node that built it, and
 * the package may run on another: Node 22 and 24 are both supported), a node that has
 * `module.enableCompileCache` (≥ 22.1) keeps a compile cache of its own for the bundle, made at
 * its first run and used from the second: `require` runs the bundle with it. Its folder is the
 * user's own cache folder, not the shared temporary one Node would pick (where another user
 * could leave a cache to be run), unless NODE_COMPILE_CACHE names one. False (nothing run) when
 * this node has no compile cache or cannot enable it.
 */
function runWithNodeCompileCache(bundlePath: string): boolean {
    const enable = (Module as { enableCompileCache?: (dir?: string) => { status: number } }).enableCompileCache;
    const status = (Module as { constants?: { compileCacheStatus?: { ENABLED: number; ALREADY_ENABLED: number } } }).constants?.compileCacheStatus;
    if (enable === undefined || status === undefined) return false;
    const dir = process.env.NODE_COMPILE_CACHE ? undefined : join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'apl-tools', 'node-compile-cache');
    let result: { status: number };
    try {
        result = enable(dir);
    } catch {
        return false;
    }
    if (result.status !== status.ENABLED && result.status !== status.ALREADY_ENABLED) return false;
    Module.createRequire(bundlePath)(bundlePath);
    return true;
}

/** Where a bundle run with `APL_WRITE_CODE_CACHE=1` keeps its `save` (one per thread: each has its own globalThis). */
const SAVE = Symbol.for('apl-tools.saveCodeCache');

/**
 * In the build's warm-up session (`APL_WRITE_CODE_CACHE=1`): writes the code cache of the bundle
 * this thread runs, with everything compiled so far. Worker threads call it after their work,
 * since a terminated worker never sees 'exit'. Otherwise it does nothing.
 */
export function saveCodeCacheNow(): void {
    const save = (globalThis as Record<symbol, unknown>)[SAVE];
    if (typeof save === 'function') (save as () => void)();
}

export interface CodeCacheRun {
    /**
     * `none`: no cache for this exact bundle and node; `rejected`: V8 refused it (other flags);
     * `node`: none, and this node (≥ 22.1) compiled the bundle with its own compile cache instead.
     */
    readonly cache: 'used' | 'rejected' | 'none' | 'node';
    /** Writes the cache from everything compiled so far (the warm-up calls it at exit). */
    save(): void;
}

/**
 * Version 3 adds the length and CRC-32 of the cache itself, and the node version: release builds of
 * V8 do not checksum a code cache, and may crash (SIGSEGV, SIGTRAP) on a damaged one, so no byte of
 * it reaches V8 unchecked.
 */
const MAGIC = 'apl-v8-code-cache 3';

/** `MAGIC <bundle length>-<bundle CRC-32> <cache length>-<cache CRC-32> <node version>\n`. */
function header(sourceHash: string, data: Buffer): string {
    return `${MAGIC} ${sourceHash} ${data.length}-${crc32(data).toString(16)} ${process.version}\n`;
}

function readCache(cachePath: string, sourceHash: string): Buffer | undefined {
    let file: Buffer;
    try {
        file = readFileSync(cachePath);
    } catch {
        return undefined;
    }
    const end = file.indexOf(10);
    if (end < 0 || end > 200) return undefined;
    const data = file.subarray(end + 1);
    return data.length > 0 && file.toString('latin1', 0, end + 1) === header(sourceHash, data) ? data : undefined;
}

function writeCache(cachePath: string, sourceHash: string, data: Buffer): void {
    // Written aside and renamed, so that a process starting meanwhile never reads half a cache.
    const partial = `${cachePath}.${process.pid}.tmp`;
    writeFileSync(partial, Buffer.concat([Buffer.from(header(sourceHash, data), 'latin1'), data]));
    renameSync(partial, cachePath);
}
