import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import vsctm from 'vscode-textmate';
import oniguruma from 'vscode-oniguruma';

const require = createRequire(import.meta.url);
const grammarPath = fileURLToPath(new URL('../../syntaxes/apl.tmLanguage.json', import.meta.url));

interface Token {
    text: string;
    scopes: string[];
}

let grammar: vsctm.IGrammar;

beforeAll(async () => {
    const wasm = readFileSync(require.resolve('vscode-oniguruma/release/onig.wasm'));
    await oniguruma.loadWASM(wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength));
    const registry = new vsctm.Registry({
        onigLib: Promise.resolve({
            createOnigScanner: (sources: string[]) => new oniguruma.OnigScanner(sources),
            createOnigString: (s: string) => new oniguruma.OnigString(s),
        }),
        loadGrammar: async (scopeName: string) =>
            scopeName === 'source.apl' ? vsctm.parseRawGrammar(readFileSync(grammarPath, 'utf8'), grammarPath) : null,
    });
    const loaded = await registry.loadGrammar('source.apl');
    if (!loaded) throw new Error('grammar did not load');
    grammar = loaded;
});

function tokenize(text: string): Token[] {
    const out: Token[] = [];
    let state = vsctm.INITIAL;
    for (const line of text.split('\n')) {
        const r = grammar.tokenizeLine(line, state);
        for (const t of r.tokens) out.push({ text: line.slice(t.startIndex, t.endIndex), scopes: t.scopes });
        state = r.ruleStack;
    }
    return out;
}

/** The scopes of the `occurrence`-th token whose text (trimmed) is `text`. */
function scopesOf(tokens: Token[], text: string, occurrence = 0): string[] {
    const hits = tokens.filter(t => t.text.trim() === text);
    const hit = hits[occurrence];
    if (!hit) throw new Error(`no token '${text}' (#${occurrence}) in: ${tokens.map(t => JSON.stringify(t.text)).join(' ')}`);
    return hit.scopes;
}

function expectScope(query: string, text: string, scope: string, occurrence = 0): void {
    const scopes = scopesOf(tokenize(query), text, occurrence);
    expect(scopes.some(s => s === scope || s.startsWith(scope + '.')), `'${text}' in ${JSON.stringify(query)} has ${scopes.join(' ')}`).toBe(true);
}

function expectNoScope(query: string, text: string, scope: string, occurrence = 0): void {
    const scopes = scopesOf(tokenize(query), text, occurrence);
    expect(scopes.some(s => s === scope || s.startsWith(scope + '.')), `'${text}' in ${JSON.stringify(query)} has ${scopes.join(' ')}`).toBe(false);
}

describe('apl.tmLanguage.json', () => {
    it('has the scope name source.apl', () => {
        expect(tokenize('x')[0].scopes[0]).toBe('source.apl');
    });

    it('comments', () => {
        const q = "['sample-http-logs'] // all of them\n| take 10 // ten";
        expectScope(q, '//', 'punctuation.definition.comment.apl');
        expectScope(q, 'all of them', 'comment.line.double-slash.apl');
        expectScope(q, 'ten', 'comment.line.double-slash.apl');
        expectScope(q, 'take', 'keyword.control');
    });

    it('strings: double, single, verbatim, escapes', () => {
        const q = `| where a == "it's \\"ok\\"" and b == 'say "hi"' and c matches regex @"\\d+""x" and d == @'a\\b'`;
        const tokens = tokenize(q);
        expect(tokens.find(t => t.text === "it's ")?.scopes).toContain('string.quoted.double.apl');
        expect(tokens.find(t => t.text === '\\"')?.scopes).toContain('constant.character.escape.apl');
        expect(tokens.find(t => t.text === 'say "hi"')?.scopes).toContain('string.quoted.single.apl');
        expect(tokens.find(t => t.text === '\\d+')?.scopes).toContain('string.quoted.double.verbatim.apl');
        expect(tokens.find(t => t.text === '""')?.scopes).toContain('constant.character.escape.apl');
        expect(tokens.find(t => t.text === 'a\\b')?.scopes).toContain('string.quoted.single.verbatim.apl');
        expectScope(q, '@', 'storage.modifier.verbatim.apl');
    });

    it('an unterminated string ends at the line end', () => {
        const q = '| where a == "oops\n| take 1';
        expectScope(q, 'take', 'keyword.control.tabular.apl');
    });

    it('numbers and timespan literals', () => {
        const q = '| where d > 1.5h and e < 100ms and f > 10min and g == 1tick and h > 2d and i == 42 and j == 0.05 and k == 1e3 and l == 0x1F and m > 1w';
        for (const ts of ['1.5h', '100ms', '10min', '1tick', '2d', '1w']) expectScope(q, ts, 'constant.numeric.timespan.apl');
        for (const n of ['42', '0.05', '1e3']) expectScope(q, n, 'constant.numeric.apl');
        expectScope(q, '0x1F', 'constant.numeric.hex.apl');
    });

    it('true, false, null', () => {
        const q = '| extend a = true, b = false, c = dynamic(null), d = bool(null)';
        expectScope(q, 'true', 'constant.language.apl');
        expectScope(q, 'false', 'constant.language.apl');
        expectScope(q, 'null', 'constant.language', 0);
        expectScope(q, 'null', 'constant.language', 1);
    });

    it('comparison and string operators', () => {
        const q = "| where a == 1 and b != 2 or c =~ 'x' and d !~ 'y' and e <> 3 and f contains 'z' and g !contains_cs 'w' and h has_any ('a', 'b') and i startswith 'q' and j in~ ('a') and k !in ('b') and l between (1 .. 2) and m hasprefix_cs 'p'";
        for (const op of ['==', '!=', '=~', '!~', '<>']) expectScope(q, op, 'keyword.operator.comparison.apl');
        for (const op of ['and', 'or']) expectScope(q, op, 'keyword.operator.logical.apl');
        for (const op of ['contains', '!contains_cs', 'has_any', 'startswith', 'in~', '!in', 'between', 'hasprefix_cs']) {
            expectScope(q, op, 'keyword.operator.string.apl');
        }
        expectScope(q, '..', 'keyword.operator.range.apl');
    });

    it('matches regex and !matches regex', () => {
        const q = '| where a matches regex "x" and b !matches regex "y"';
        expectScope(q, 'matches regex', 'keyword.operator.string.apl');
        expectScope(q, '!matches regex', 'keyword.operator.string.apl');
    });

    it('tabular operators, including hyphenated ones', () => {
        const q = [
            "['sample-http-logs']",
            '| where status == "500"',
            '| project-away uri',
            '| project-reorder method',
            '| mv-expand territories',
            '| extend-valid x = 1',
            '| parse-kv kvdata as (a:string) with (pair_delimiter=";", kv_delimiter="=")',
            '| parse-where kind=regex message with @"(\\w+)" word:string',
            '| make-series count() default=0 on _time from ago(1d) to now() step 1h by method',
            '| summarize count() by bin_auto(_time)',
            '| sort by _time desc',
            '| project method, status',
        ].join('\n');
        for (const op of ['where', 'project-away', 'project-reorder', 'mv-expand', 'extend-valid', 'parse-kv', 'parse-where', 'make-series', 'summarize', 'sort', 'project']) {
            expectScope(q, op, 'keyword.control.tabular.apl');
        }
        expectScope(q, '|', 'keyword.operator.pipe.apl');
    });

    it('an operator on the line after a trailing pipe', () => {
        const q = "['otel-demo-traces'] |\ncount";
        expectScope(q, 'count', 'keyword.control.tabular.apl');
    });

    it('count() is a function, not the count operator', () => {
        const q = '| summarize count() by method';
        expectScope(q, 'count', 'entity.name.function.apl');
        expectNoScope(q, 'count', 'keyword.control');
    });

    it('clause keywords', () => {
        const q = "| join kind=inner (['b']) on $left.id == $right.id\n| top 5 by n asc\n| project-reorder a granny-desc\n| mv-expand with_itemindex=i a to typeof(long)";
        for (const kw of ['kind', 'on', 'by', 'asc', 'granny-desc', 'with_itemindex', 'to']) expectScope(q, kw, 'keyword.other.clause.apl');
        expectScope(q, '$left', 'variable.language.apl');
    });

    it('a field named kind compared with == is not a clause keyword', () => {
        expectNoScope('| where kind == "server"', 'kind', 'keyword.other.clause.apl');
    });

    it('function calls', () => {
        const q = '| extend d = strlen(uri), e = tolower( method ), f = not(is_tls)';
        for (const fn of ['strlen', 'tolower', 'not']) expectScope(q, fn, 'entity.name.function.apl');
        expectNoScope(q, 'uri', 'entity.name.function.apl');
    });

    it('type names in typeof(), typed nulls and column declarations', () => {
        const q = 'let T = datatable(name:string, n:long, t:datetime) ["a", 1, datetime(2024-01-01)];\nT | extend x = long(null), y = real(null) | mv-expand a to typeof(long)';
        for (const t of ['string', 'long', 'datetime']) expectScope(q, t, 'support.type.apl');
        expectScope(q, 'long', 'support.type.apl', 1);
        expectScope(q, 'real', 'support.type.apl');
        expectScope(q, 'typeof', 'keyword.other.typeof.apl');
        expectScope(q, 'long', 'support.type.apl', 2);
        expectScope(q, 'let', 'keyword.control.statement.apl');
        expectScope(q, 'datatable', 'keyword.control.tabular.apl');
    });

    it('bracket-quoted names', () => {
        const q = "['sample-http-logs'] | project ['geo.city'], [\"service.name\"], ['attributes.custom']['http.protocol']";
        expectScope(q, "'sample-http-logs'", 'variable.other.quoted.apl');
        expectScope(q, "'geo.city'", 'variable.other.quoted.apl');
        expectScope(q, '"service.name"', 'variable.other.quoted.apl');
        expectScope(q, "'http.protocol'", 'variable.other.quoted.apl');
        expectScope(q, '[', 'punctuation.definition.name.begin.apl');
    });

    it('datetime(...) literals, unquoted and quoted', () => {
        const q = "| where _time > datetime(2024-01-15T14:00:00Z) and _time < datetime('2022-09-16') and x == datetime(null)";
        expectScope(q, 'datetime', 'support.type.apl');
        expectScope(q, '2024-01-15T14:00:00Z', 'constant.other.datetime.apl');
        expectScope(q, '2024-01-15T14:00:00Z', 'meta.literal.datetime.apl');
        expectScope(q, '2022-09-16', 'string.quoted.single.apl');
        expectScope(q, 'null', 'constant.language.null.apl');
    });

    it('dynamic(...) literals', () => {
        const q = `let methods = dynamic(['GET', 'POST', {"a": 1, "b": [true, null]}]);`;
        expectScope(q, 'dynamic', 'support.type.apl');
        expectScope(q, 'GET', 'string.quoted.single.apl');
        expectScope(q, 'GET', 'meta.literal.dynamic.apl');
        expectScope(q, 'a', 'string.quoted.double.apl');
        expectScope(q, '1', 'constant.numeric.apl');
        expectScope(q, 'true', 'constant.language.apl');
    });

    it('declare query_parameters', () => {
        const q = 'declare query_parameters (country_filter:string = "");';
        expectScope(q, 'declare', 'keyword.control.statement.apl');
        expectScope(q, 'query_parameters', 'keyword.other.apl');
        expectScope(q, 'string', 'support.type.apl');
    });

    it('subtraction is not a hyphenated operator', () => {
        const q = '| extend d = end-start';
        expectScope(q, '-', 'keyword.operator.arithmetic.apl');
    });
});
