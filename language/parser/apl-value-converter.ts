import { DefaultValueConverter, type CstNode, type GrammarAST, type ValueType } from 'langium';

/** Turns APL's quoted forms into their values: strings, verbatim strings and `['bracketed names']`. */
export class AplValueConverter extends DefaultValueConverter {
    protected override runConverter(rule: GrammarAST.AbstractRule, input: string, cstNode: CstNode): ValueType {
        switch (rule.name) {
            case 'STRING': return unescapeString(input.slice(1, -1));
            case 'VERBATIM_STRING': return unquoteVerbatim(input);
            case 'BRACKET_NAME': return unbracket(input);
            case 'StringOperator': return input.replace(/matches\s*regex$/, 'matches regex');
            case 'WILDCARD': return input; // kept as written: `status*`, `['geo.']*`
            case 'DATETIME':
            case 'TIMESPAN':
            case 'LONG':
            case 'REAL':
                return input; // the literal's raw text; literal-values.ts gives its value
            default: return super.runConverter(rule, input, cstNode);
        }
    }
}

/** `['geo.city']` -> `geo.city` */
export function unbracket(text: string): string {
    const inner = text.slice(1, -1).trim();
    return unescapeString(inner.slice(1, -1));
}

/** `@"a""b"` -> `a"b`: in verbatim strings a backslash is literal and a doubled quote is one quote. */
export function unquoteVerbatim(text: string): string {
    const quote = text[1];
    return text.slice(2, -1).split(quote + quote).join(quote);
}

const SIMPLE_ESCAPES: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', '"': '"', "'": "'", '0': '\0', a: '\x07', b: '\b', f: '\f', v: '\v' };

export function unescapeString(body: string): string {
    if (!body.includes('\\')) return body;
    let out = '';
    for (let i = 0; i < body.length; i++) {
        const c = body[i];
        if (c !== '\\' || i + 1 >= body.length) {
            out += c;
            continue;
        }
        const next = body[++i];
        if (next === 'u' && /^[0-9a-fA-F]{4}$/.test(body.slice(i + 1, i + 5))) {
            out += String.fromCharCode(parseInt(body.slice(i + 1, i + 5), 16));
            i += 4;
        } else if (next === 'x' && /^[0-9a-fA-F]{2}$/.test(body.slice(i + 1, i + 3))) {
            out += String.fromCharCode(parseInt(body.slice(i + 1, i + 3), 16));
            i += 2;
        } else {
            // Unknown escapes keep the backslash: regexes like "\d" written in normal strings stay intact.
            out += SIMPLE_ESCAPES[next] ?? `\\${next}`;
        }
    }
    return out;
}
