/**
 * NDJSON bodies are decoded line by line (ASCII lines as one-byte strings, for speed): the events
 * and failures must be exactly those of decoding the whole body as UTF-8 and splitting it at `\n`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEvents, type ParsedEvents } from '../../../language/ingest/parse-events.js';

/** The reference: one UTF-8 decode of the whole body, one JSON.parse per non-blank line. */
function reference(body: Buffer): ParsedEvents {
    const events: Record<string, unknown>[] = [];
    const failures: { index: number; error: string }[] = [];
    body.toString('utf8').split('\n').forEach(line => {
        if (line.trim() === '') return;
        const v = JSON.parse(line) as unknown;
        if (typeof v === 'object' && v !== null && !Array.isArray(v)) events.push(v as Record<string, unknown>);
        else failures.push({ index: events.length + failures.length, error: expect.any(String) as unknown as string });
    });
    return { events, failures };
}

const TEXTS = ['plain', 'São Paulo', 'Zürich', '東京', 'emoji 😀', 'tab\there', 'quote " and \\ backslash', ''];

describe('NDJSON lines', () => {
    it.each([
        ['ASCII and non-ASCII lines mixed', ['{"city":"Paris"}', '{"city":"São Paulo"}', '{"city":"東京","n":1}', '{"e":"😀"}'].join('\n')],
        ['CRLF line ends and blank lines', '{"a":1}\r\n\r\n{"b":"ü"}\r\n'],
        ['a byte-order mark before the first line', '\ufeff{"a":1}\n{"b":2}'],
        ['a non-object line among objects', '{"a":1}\n42\n{"b":"ß"}'],
    ])('%s', (_name, text) => {
        const body = Buffer.from(text, 'utf8');
        expect(parseEvents(body, 'ndjson')).toEqual(text.startsWith('\ufeff') ? parseEvents(Buffer.from(text.slice(1)), 'ndjson') : reference(body));
    });

    it('invalid UTF-8 decodes to U+FFFD exactly as a whole-body decode does', () => {
        const body = Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xc3]), Buffer.from('"}\n{"b":"'), Buffer.from([0xe2, 0x82]), Buffer.from('"}\n{"c":"ok"}')]);
        const parsed = parseEvents(body, 'ndjson');
        expect(parsed).toEqual(reference(body));
        expect(parsed.events[0]).toEqual({ a: '\ufffd' });
    });

    it('any mix of ASCII and non-ASCII values (property)', () => {
        fc.assert(
            fc.property(fc.array(fc.record({ s: fc.constantFrom(...TEXTS), t: fc.string({ unit: 'grapheme' }), n: fc.integer() }), { minLength: 1, maxLength: 30 }), records => {
                const body = Buffer.from(records.map(r => JSON.stringify(r)).join('\n'), 'utf8');
                expect(parseEvents(body, 'ndjson')).toEqual(reference(body));
                expect(parseEvents(body, 'json')).toEqual(reference(body));
            }),
            { numRuns: 200 },
        );
    });
});
