import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * The id of the build this bundle belongs to (esbuild defines it, scripts/bundles.mjs); undefined
 * when the code runs from its sources.
 */
declare const __APL_BUILD_ID__: string | undefined;
const BUILD_ID = typeof __APL_BUILD_ID__ === 'string' ? __APL_BUILD_ID__ : undefined;

/**
 * Starts the worker module `name` (e.g. `compact-worker`) that sits beside the calling module,
 * given the caller's `import.meta.url`, in each of the ways the code runs:
 * - TypeScript sources (tests, tsx): the worker boots through tsx's ESM loader;
 * - compiled ESM: `<name>.js` beside the caller;
 * - the CommonJS bundles in out/: `import.meta.url` is the bundle's own URL there (esbuild defines
 *   it, see scripts/bundles.mjs), and the worker is bundled beside it as `<bundledName>.cjs`, run
 *   through `worker-launcher.cjs` (with its V8 code cache) when that is there too;
 * - the ESM bundle of `apl-tools/service` (out/service.mjs): the CommonJS worker bundles beside it;
 * - a CommonJS bundle made without that definition (`callerUrl` undefined): `<bundledName>.cjs`
 *   beside this module.
 * A bundled worker is told this bundle's build id, and refuses to start when it is of another
 * build: a rebuild replaced the files under a running process (scripts/install-build.mjs).
 */
export function startWorker(callerUrl: string | undefined, name: string, bundledName = name, resourceLimits?: ResourceLimits, workerData?: unknown): Worker {
    const argv = BUILD_ID === undefined ? [] : ['--apl-build', BUILD_ID];
    if (callerUrl === undefined) return new Worker(join(__dirname, `${bundledName}.cjs`), { resourceLimits, workerData, argv });
    // The CommonJS bundles, and the ESM bundle of `apl-tools/service` beside them (out/service.mjs).
    if (callerUrl.endsWith('.cjs') || callerUrl.endsWith('/service.mjs')) {
        // In out/, through the launcher that runs the bundle with its code cache (worker-launcher.ts);
        // where there is none (the VS Code extension's dist/), the bundle itself.
        const launcher = new URL('./worker-launcher.cjs', callerUrl);
        if (existsSync(launcher)) return new Worker(launcher, { resourceLimits, workerData, argv: [...argv, '--apl-worker', bundledName] });
        return new Worker(new URL(`./${bundledName}.cjs`, callerUrl), { resourceLimits, workerData, argv });
    }
    if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, callerUrl), { resourceLimits, workerData });
    const target = new URL(`./${name}.ts`, callerUrl).href;
    let tsx = 'tsx/esm/api';
    try {
        tsx = import.meta.resolve('tsx/esm/api');
    } catch {
        // keep the bare specifier
    }
    const boot = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(target)}); });`;
    return new Worker(boot, { eval: true, resourceLimits, workerData });
}
