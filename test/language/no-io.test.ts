/**
 * language/ does no I/O of its own (ARCHITECTURE.md): readers and clocks are injected. No file of it
 * imports a module that reads or writes files, the network or processes.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const LANGUAGE = fileURLToPath(new URL('../../language', import.meta.url));
const FORBIDDEN = ['fs', 'fs/promises', 'net', 'http', 'https', 'http2', 'child_process', 'dgram', 'tls', 'worker_threads', 'cluster'];

function sources(dir: string): string[] {
    return readdirSync(dir, { withFileTypes: true }).flatMap(e => {
        const path = join(dir, e.name);
        if (e.isDirectory()) return sources(path);
        return /\.ts$/.test(e.name) ? [path] : [];
    });
}

/** Module specifiers of static imports, re-exports, dynamic imports and requires. */
function specifiers(text: string): string[] {
    const out: string[] = [];
    for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\brequire\s*\(\s*|^\s*import\s+)(['"])([^'"]+)\1/gm)) out.push(m[2]);
    return out;
}

describe('language/ does no I/O', () => {
    it('no file under language/ imports fs, net, http, child_process or the like (with or without node:)', () => {
        const offenders: string[] = [];
        const files = sources(LANGUAGE);
        expect(files.length).toBeGreaterThan(50);
        for (const file of files) {
            for (const spec of specifiers(readFileSync(file, 'utf8'))) {
                const name = spec.replace(/^node:/, '');
                if (FORBIDDEN.includes(name)) offenders.push(`${relative(LANGUAGE, file)}: ${spec}`);
            }
        }
        expect(offenders).toEqual([]);
    });

    it('the import scanner sees every form of import', () => {
        const text = "import { readFileSync } from 'node:fs';\nimport * as net from \"net\";\nexport { x } from 'node:http';\nconst c = await import('child_process');\nconst f = require('fs/promises');\nimport 'node:https';";
        expect(specifiers(text)).toEqual(['node:fs', 'net', 'node:http', 'child_process', 'fs/promises', 'node:https']);
    });
});
