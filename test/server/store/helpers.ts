import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';

export function tempDir(prefix = 'apl-store-'): { dir: string; cleanup: () => void } {
    const dir = mkdtempSync(path.join(tmpdir(), prefix));
    return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export function ndjson(events: object[]): Buffer {
    return Buffer.from(events.map((e) => JSON.stringify(e)).join('\n'));
}
