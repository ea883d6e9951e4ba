/**
 * `checkText`: validate one APL text and get LSP-shaped diagnostics with stable codes. The CLI
 * (`apl check`) and the library's `check()` call it. Services are created once per schema provider
 * and reused; documents are never added to a workspace, so checking thousands of queries in a row
 * keeps memory flat.
 */
import { EmptyFileSystem, URI, type Module } from 'langium';
import type { PartialLangiumServices } from 'langium/lsp';
import { DocumentValidator } from 'langium';
import { createAplServices, OneQueryPerTextModule, type AplAddedServices, type AplServices } from './apl-module.js';
import { Issues } from './apl-issue-codes.js';
import { EmptySchemaProvider } from './schema/empty-schema-provider.js';
import type { SchemaProvider } from './schema/schema-provider.js';
import type { Model } from './generated/ast.js';
import { countBelow, queryBlockSpans } from './query-blocks.js';
import type { AnalyzerConfig } from './analyzers/analyzer-config.js';
import type { AplValidationOptions } from './apl-validator.js';

export type DiagnosticSeverityName = 'error' | 'warning' | 'info' | 'hint';

export interface AplPosition {
    /** 0-based. */
    line: number;
    /** 0-based, in UTF-16 code units (as LSP). */
    character: number;
}

export interface AplDiagnostic {
    /** `APL0001…`; `APL1001` for syntax errors, `APL1002`–`APL1004` for the parser's limits. */
    code: string;
    severity: DiagnosticSeverityName;
    message: string;
    range: { start: AplPosition; end: AplPosition };
    /** Machine-readable extras for quick fixes (`{ code, suggestion? }`). */
    data?: unknown;
}

export interface CheckOptions {
    /** Datasets and fields. Default: none (unknown names are never reported). */
    schema?: SchemaProvider;
    /** Only report syntax errors (APL1001). */
    syntaxOnly?: boolean;
    /**
     * Whether the text is a document of query blocks, a blank line ending each (default, as the editor
     * and `apl check` read a file), or one query whatever its lines (`false`: the HTTP service's request).
     */
    queryBlocks?: boolean;
    /** Run the best-practice analyzers (APL2001…) with this configuration (`{}`: every rule at its default). Default: off. */
    analyzers?: AnalyzerConfig;
}

const SEVERITIES: Record<number, DiagnosticSeverityName> = { 1: 'error', 2: 'warning', 3: 'info', 4: 'hint' };
const SYNTAX_DATA_CODES = new Set<string>([DocumentValidator.LexingError, DocumentValidator.ParsingError]);

const emptySchema = new EmptySchemaProvider();
const servicesBySchema = { blocks: new WeakMap<SchemaProvider, AplServices>(), oneQuery: new WeakMap<SchemaProvider, AplServices>() };
const checkUri = URI.parse('memory:///check.apl');

/** The services used for a schema provider (and a reading of blank lines), created on first use and then reused. */
export function checkServices(schema: SchemaProvider = emptySchema, queryBlocks = true): AplServices {
    const cache = queryBlocks ? servicesBySchema.blocks : servicesBySchema.oneQuery;
    let services = cache.get(schema);
    if (!services) {
        const module: Module<AplServices, PartialLangiumServices & Partial<AplAddedServices>> = {
            ...(queryBlocks ? {} : OneQueryPerTextModule),
            schema: { SchemaProvider: () => schema },
        };
        services = createAplServices({ ...EmptyFileSystem, module }).Apl;
        cache.set(schema, services);
    }
    return services;
}

/** Validates `text` and returns its diagnostics, sorted by position. */
export async function checkText(text: string, options: CheckOptions = {}): Promise<AplDiagnostic[]> {
    const services = checkServices(options.schema, options.queryBlocks ?? true);
    const document = services.shared.workspace.LangiumDocumentFactory.fromString<Model>(text, checkUri);
    const validation: AplValidationOptions = options.syntaxOnly ? { categories: ['built-in'] } : options.analyzers ? { analyzers: options.analyzers } : {};
    const raw = await services.validation.DocumentValidator.validateDocument(document, validation);
    const out: AplDiagnostic[] = [];
    for (const d of raw) {
        const dataCode = (d.data as { code?: unknown } | undefined)?.code;
        const syntax = typeof dataCode === 'string' && SYNTAX_DATA_CODES.has(dataCode);
        const code = syntax ? Issues.SyntaxError.code : typeof d.code === 'string' ? d.code : typeof dataCode === 'string' ? dataCode : Issues.SyntaxError.code;
        // APL1xxx (syntax, nesting, size) are what --syntax-only keeps.
        if (options.syntaxOnly && !syntax && !code.startsWith('APL1')) continue;
        const diagnostic: AplDiagnostic = {
            code,
            severity: SEVERITIES[d.severity ?? 1] ?? 'error',
            message: typeof d.message === 'string' ? d.message : d.message.value,
            range: { start: { ...d.range.start }, end: { ...d.range.end } },
        };
        if (!syntax && d.data !== undefined) diagnostic.data = d.data;
        out.push(diagnostic);
    }
    out.sort((a, b) => a.range.start.line - b.range.start.line || a.range.start.character - b.range.start.character);
    return out;
}

/** One query block of a document (language/query-blocks.ts), as `apl run --file` runs it. */
export interface DocumentQueryBlock {
    /** The block's text, from the start of its first line (so columns are the file's) to its last token. */
    text: string;
    /** 0-based line of the block's first line in the document. */
    startLine: number;
    /** 0-based line of its last line. */
    endLine: number;
}

/** The query blocks of a document: runs of non-blank lines, a blank line ending each. */
export function documentQueryBlocks(text: string): DocumentQueryBlock[] {
    const breaks: number[] = [];
    for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) breaks.push(i);
    /** The number of line breaks before `offset`: its 0-based line. */
    const lineOf = (offset: number) => countBelow(breaks, offset);
    return queryBlockSpans(text, checkServices()).map(span => {
        const from = text.lastIndexOf('\n', span.start - 1) + 1;
        return { text: text.slice(from, span.end), startLine: lineOf(span.start), endLine: lineOf(span.end - 1) };
    });
}
