/** The project file (.aplrc.json / apl.config.json), found upward from a folder, with real files. */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { AplrcError, findAplrc, loadAplrc } from '../../../server/config/aplrc.js';

let root: string;

beforeAll(() => {
    root = mkdtempSync(join(tmpdir(), 'aplrc-'));
});

function folder(...parts: string[]): string {
    const dir = join(root, ...parts);
    mkdirSync(dir, { recursive: true });
    return dir;
}

describe('.aplrc.json', () => {
    it('is found in a folder above the file, and parsed', () => {
        const project = folder('p1');
        writeFileSync(join(project, '.aplrc.json'), '{"format": {"pipe": "end"}, "rules": {"APL2001": "off"}}');
        const deep = folder('p1', 'queries', 'errors');
        expect(loadAplrc(deep)).toEqual({ path: join(project, '.aplrc.json'), config: { format: { pipe: 'end' }, rules: { APL2001: 'off' } } });
    });

    it('the nearest one wins, and .aplrc.json before apl.config.json in one folder', () => {
        writeFileSync(join(folder('p2'), '.aplrc.json'), '{"format": {"width": 80}}');
        const inner = folder('p2', 'inner');
        writeFileSync(join(inner, 'apl.config.json'), '{"format": {"width": 60}}');
        expect(loadAplrc(inner)?.config).toEqual({ format: { width: 60 } });
        writeFileSync(join(inner, '.aplrc.json'), '{"format": {"width": 40}}');
        expect(findAplrc(inner)).toBe(join(inner, '.aplrc.json'));
    });

    it('{"format": {"pipe": "end",}}  →  an error naming the file, line and column', () => {
        const dir = folder('p3');
        writeFileSync(join(dir, '.aplrc.json'), '{\n  "format": {"pipe": "end",}\n}');
        expect(() => loadAplrc(dir)).toThrow(AplrcError);
        expect(() => loadAplrc(dir)).toThrow(`${join(dir, '.aplrc.json')}: not valid JSON at line 2, column 28`);
    });

    it('["format"]  →  an error: a project file is an object', () => {
        const dir = folder('p4');
        writeFileSync(join(dir, '.aplrc.json'), '["format"]');
        expect(() => loadAplrc(dir)).toThrow(/expected a JSON object .* got an array/);
    });

    it('a folder named .aplrc.json is not a project file', () => {
        const dir = folder('p5');
        mkdirSync(join(dir, '.aplrc.json'));
        expect(findAplrc(dir)).toBe(findAplrc(root));
    });
});
