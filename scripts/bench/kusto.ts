/**
 * Loads Kusto's own language service (`@kusto/language-service-next`, Bridge.NET output) the way its
 * package says: the scripts are meant to be loaded in order as globals (see its index.html):
 * `bridge.js` (defines the global `Bridge`), then `Kusto.Language.Bridge.js` (the global `Kusto`).
 * In Node that is two `require`s of the minified files. The typings shipped are global
 * declarations, so the few members the benchmarks use are described here.
 */
import { createRequire } from 'node:module';
import { Skip, firstLine } from './harness.js';

interface KList<T> {
    Count: number;
    getItem(index: number): T;
}

export interface KDiagnostic {
    Message: string;
    Start: number;
    Length: number;
}

export interface KCode {
    GetDiagnostics(cancellationToken: unknown): KList<KDiagnostic>;
    Syntax: unknown;
}

export interface KCodeService {
    GetCompletionItems(position: number, options: unknown, cancellationToken: unknown): { Items: KList<{ DisplayText: string }> } | null;
}

export interface KustoApi {
    Language: {
        KustoCode: {
            Parse(text: string, globals?: unknown): KCode;
            ParseAndAnalyze(text: string, globals: unknown, cancellationToken: unknown): KCode;
        };
        GlobalState: { Default: { WithDatabase(db: unknown): unknown } };
        Utils: { CancellationToken: new () => unknown };
        Symbols: {
            TableSymbol: { $ctor7: new (name: string, schema: string, description: string | null) => unknown };
            DatabaseSymbol: { $ctor1: new (name: string, members: unknown[], isOpen: boolean) => unknown };
        };
        Editor: { KustoCodeService: { $ctor1: new (text: string, globals: unknown) => KCodeService } };
    };
}

let loaded: { kusto: KustoApi; loadMs: number } | undefined;

export function loadKusto(): { kusto: KustoApi; loadMs: number } {
    if (loaded) return loaded;
    const require = createRequire(import.meta.url);
    const t0 = performance.now();
    try {
        require('@kusto/language-service-next/bridge.min.js');
        require('@kusto/language-service-next/Kusto.Language.Bridge.min.js');
    } catch (err) {
        throw new Skip(`@kusto/language-service-next does not load: ${firstLine(err)}`);
    }
    const kusto = (globalThis as { Kusto?: KustoApi }).Kusto;
    if (!kusto?.Language?.KustoCode) throw new Skip('@kusto/language-service-next loaded but defined no global Kusto.Language');
    loaded = { kusto, loadMs: performance.now() - t0 };
    return loaded;
}

/** A Kusto type name for an APL type (the sample schemas use only these). */
function kustoType(t: string): string {
    switch (t) {
        case 'string': return 'string';
        case 'long': case 'int': return 'long';
        case 'real': return 'real';
        case 'bool': return 'bool';
        case 'datetime': return 'datetime';
        case 'timespan': return 'timespan';
        default: return 'dynamic';
    }
}

/**
 * Kusto's global state with one database holding the given tables, so its analysis resolves the
 * same dataset and column names ours does (a fair comparison: both sides bind names).
 */
export function kustoGlobals(kusto: KustoApi, tables: readonly { name: string; fields: readonly { name: string; type: string }[] }[]): unknown {
    const K = kusto.Language;
    const symbols = tables.map(t => {
        const columns = t.fields.map(f => `['${f.name}']:${kustoType(f.type)}`).join(', ');
        return new K.Symbols.TableSymbol.$ctor7(t.name, `(${columns})`, null);
    });
    return K.GlobalState.Default.WithDatabase(new K.Symbols.DatabaseSymbol.$ctor1('bench', symbols, false));
}
