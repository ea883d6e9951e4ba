/**
 * The arrows of ARCHITECTURE.md, checked on the import statements of every source file:
 * - language/ does no I/O (no fs, net, http, https, child_process…) and imports neither server/ nor client/;
 * - server/ never imports client/;
 * - client/ imports server/ only where `apl serve` starts the service (client/cli/commands/serve.ts
 *   → server/http/serve.ts), where `apl run` starts query workers over a large dataset
 *   (client/cli/commands/run.ts → server/query/parallel-runner.ts), and server/config/ (the
 *   project file both read);
 * - server/http and server/query reach language/ only through its public modules: language/index.ts and language/api/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const LAYERS = ['language', 'server', 'client', 'bin'];
const SKIP_DIRS = new Set(['node_modules', 'dist', 'out', 'generated']);
const IO_MODULES = new Set(['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'child_process', 'dgram', 'tls', 'cluster']);
/** The client → server imports. */
const CLIENT_TO_SERVER = [
    { from: 'client/cli/commands/serve.ts', to: 'server/http/serve.ts' },
    { from: 'client/cli/commands/run.ts', to: 'server/query/parallel-runner.ts' },
];

interface SourceFile {
    /** Repository-relative, with `/`. */
    path: string;
    text: string;
}

function walk(dir: string): string[] {
    return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap(e => {
        const rel = `${dir}/${e.name}`;
        if (e.isDirectory()) return SKIP_DIRS.has(e.name) ? [] : walk(rel);
        return /\.(ts|mts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [rel] : [];
    });
}

function repoSources(): SourceFile[] {
    return LAYERS.flatMap(walk).map(path => ({ path, text: readFileSync(join(ROOT, path), 'utf8') }));
}

/** Module specifiers of static imports, re-exports, dynamic imports and requires. */
export function specifiers(text: string): string[] {
    const out: string[] = [];
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\1/gm)) out.push(m[2]);
    return out;
}

/** A relative specifier as a repository path (`.js` → `.ts`); undefined for packages and built-ins. */
function resolve(from: string, spec: string): string | undefined {
    if (!spec.startsWith('.')) return undefined;
    return posix.normalize(posix.join(posix.dirname(from), spec)).replace(/\.(m?)js$/, '.$1ts');
}

const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/** Every import that breaks a rule, as `file: specifier (why)`. */
export function violations(files: readonly SourceFile[]): string[] {
    const out: string[] = [];
    for (const file of files) {
        for (const spec of specifiers(file.text)) {
            const bad = (why: string) => out.push(`${file.path}: ${spec} (${why})`);
            const target = resolve(file.path, spec);
            if (under(file.path, 'language')) {
                if (IO_MODULES.has(spec.replace(/^node:/, ''))) bad('language/ does no I/O');
                if (target && (under(target, 'server') || under(target, 'client'))) bad('language/ imports neither server/ nor client/');
            }
            if (under(file.path, 'server') && target && under(target, 'client')) bad('server/ never imports client/');
            // server/config/ holds the project-file reader (.aplrc.json) that the CLI and the language server share.
            if (under(file.path, 'client') && target && under(target, 'server') && !under(target, 'server/config')) {
                if (!CLIENT_TO_SERVER.some(a => file.path === a.from && target === a.to)) bad(`client/ imports server/ only ${CLIENT_TO_SERVER.map(a => `from ${a.from} to ${a.to}`).join(' and ')}`);
            }
            if ((under(file.path, 'server/http') || under(file.path, 'server/query')) && target && under(target, 'language')) {
                if (target !== 'language/index.ts' && !under(target, 'language/api')) bad('server/http and server/query use language/ through language/index.ts or language/api/');
            }
        }
    }
    return out;
}

describe('architecture: imports point client -> server -> language', () => {
    it('no source file breaks a rule', () => {
        const files = repoSources();
        expect(files.filter(f => under(f.path, 'language')).length).toBeGreaterThan(50);
        expect(files.filter(f => under(f.path, 'server')).length).toBeGreaterThan(20);
        expect(files.filter(f => under(f.path, 'client')).length).toBeGreaterThan(20);
        expect(violations(files)).toEqual([]);
    });

    it('reports each kind of broken rule (the imports client/ had before they moved)', () => {
        const files: SourceFile[] = [
            { path: 'client/cli/bin.ts', text: "import { runWithCodeCache } from '../../server/code-cache.js';" },
            { path: 'client/cli/commands/token.ts', text: "import { TokenStore } from '../../../server/store/tokens.js';" },
            { path: 'client/api/types.ts', text: "export type { IngestStatus } from '../../server/ingest/ingest.js';" },
            { path: 'client/cli/commands/serve.ts', text: "import { runServe } from '../../../server/http/serve.js';\nimport { resolveDataDir } from '../../../server/http/app.js';" },
            { path: 'language/eval/x.ts', text: "import { readFileSync } from 'node:fs';\nconst cp = await import('child_process');\nimport { Store } from '../../server/store/store.js';\nimport { AplClient } from '../../client/api/index.js';" },
            { path: 'server/http/x.ts', text: "import { AplClient } from '../../client/api/index.js';\nimport { runQuery } from '../../language/eval/query.js';\nimport { parse } from '../../language/index.js';\nimport type { QueryStatus } from '../../language/api/status.js';" },
            { path: 'server/query/x.ts', text: "import { createEngine } from '../../language/eval/engine.js';" },
        ];
        expect(violations(files)).toEqual([
            'client/cli/bin.ts: ../../server/code-cache.js (client/ imports server/ only from client/cli/commands/serve.ts to server/http/serve.ts and from client/cli/commands/run.ts to server/query/parallel-runner.ts)',
            'client/cli/commands/token.ts: ../../../server/store/tokens.js (client/ imports server/ only from client/cli/commands/serve.ts to server/http/serve.ts and from client/cli/commands/run.ts to server/query/parallel-runner.ts)',
            'client/api/types.ts: ../../server/ingest/ingest.js (client/ imports server/ only from client/cli/commands/serve.ts to server/http/serve.ts and from client/cli/commands/run.ts to server/query/parallel-runner.ts)',
            'client/cli/commands/serve.ts: ../../../server/http/app.js (client/ imports server/ only from client/cli/commands/serve.ts to server/http/serve.ts and from client/cli/commands/run.ts to server/query/parallel-runner.ts)',
            'language/eval/x.ts: node:fs (language/ does no I/O)',
            'language/eval/x.ts: child_process (language/ does no I/O)',
            'language/eval/x.ts: ../../server/store/store.js (language/ imports neither server/ nor client/)',
            'language/eval/x.ts: ../../client/api/index.js (language/ imports neither server/ nor client/)',
            'server/http/x.ts: ../../client/api/index.js (server/ never imports client/)',
            'server/http/x.ts: ../../language/eval/query.js (server/http and server/query use language/ through language/index.ts or language/api/)',
            'server/query/x.ts: ../../language/eval/engine.js (server/http and server/query use language/ through language/index.ts or language/api/)',
        ]);
    });

    it('the import scanner sees every form of import', () => {
        const text = "import { readFileSync } from 'node:fs';\nimport * as net from \"net\";\nexport { x } from 'node:http';\nconst c = await import('child_process');\nconst f = require('fs/promises');\nimport 'node:https';";
        expect(specifiers(text)).toEqual(['node:fs', 'net', 'node:http', 'child_process', 'fs/promises', 'node:https']);
    });
});
