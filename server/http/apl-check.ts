/**
 * Checks APL the service runs or stores with the checker of `apl check` (language/check.ts),
 * against the service's own datasets and fields:
 * - a query (`assertRunnable`, called in the query worker before evaluating): its first error is a
 *   400 in the shape of the evaluator's errors, with the code in `detail.code`; warnings never fail
 *   it, and an unknown dataset is left to the evaluator's 404;
 * - a monitor's query (`assertValid`): every error and an unknown dataset is a 400, since such a
 *   stored query could never run.
 */
import {
    check as checkText, checkServices, Issues, MutableSchemaProvider, typeFromAxiomFieldType,
    type AplDiagnostic, type AplDiagnosticData, type AplServices, type DatasetSchema,
} from '../../language/index.js';
import type { DataPlane } from './data-plane.js';
import { badRequest, HttpError, queryErrorBody } from './errors.js';

/**
 * Longest monitor query checked. The check runs on the event loop at roughly 30-40 µs per character
 * (measured here: 12 KB in 0.4-0.5 s, 50 KB in 2 s), so this bounds the pause one request causes
 * to about half a second; monitor queries are a few hundred characters.
 */
export const MAX_CHECKED_APL_LENGTH = 16 * 1024;

/** Where the datasets and their fields come from: the data plane (monitors), a query worker's engine. */
export interface AplSchemaSource {
    datasets(): string[];
    /** Axiom field types (`integer`, `string`, `map`...). */
    fields(dataset: string): { name: string; type: string }[];
    /** Settles once `fields` is complete (the service's start-up loads); absent = at once. */
    ready?(): Promise<void>;
}

/** The data plane's datasets, with the fields its engine has once they are loaded. */
export function dataPlaneSchema(data: DataPlane): AplSchemaSource {
    return { datasets: () => data.listDatasets().map((m) => m.name), fields: (name) => data.engine.fields(name), ready: () => data.allLoaded() };
}

/** Query texts whose verdict is kept, and the longest kept (a dashboard's queries, a result's pages). */
const VERDICTS_KEPT = 256;
const VERDICT_TEXT_MAX = 4096;

/** Diagnostics that say the dataset does not exist: for a query, the evaluator's 404 (explainUnknownDataset) answers them. */
const DATASET_CODES = new Set([Issues.UnknownDataset.code, Issues.InvalidDatasetName.code]);

export class ServiceAplChecker {
    /** One provider for the service's lifetime: the checker's services are built once per provider. */
    private readonly schema = new MutableSchemaProvider();
    private schemaKey = '';
    /**
     * The first problem of query texts checked against the current schema (null: none), cleared when
     * the schema changes: a query run again is not checked again (about 1 ms for 50 characters, a
     * fifth of a small query's answer).
     */
    private readonly verdicts = new Map<string, AplDiagnostic | null>();

    constructor(private readonly source: AplSchemaSource) {}

    /** The Langium services this checker validates with (built on first use; they read a text as one query). */
    services(): AplServices {
        return checkServices(this.schema, false);
    }

    /** The problems that make `text` unusable as a stored query (errors, unknown datasets). */
    async problems(text: string): Promise<AplDiagnostic[]> {
        this.refreshSchema();
        const diagnostics = await checkText(text, { schema: this.schema, queryBlocks: false });
        return diagnostics.filter((d) => d.severity === 'error' || d.code === Issues.UnknownDataset.code);
    }

    /** Throws a 400 for the first problem of `text`, given in body field `field`. */
    async assertValid(field: string, text: string): Promise<void> {
        if (text.length > MAX_CHECKED_APL_LENGTH) {
            throw badRequest(`invalid ${field}: ${text.length} characters, at most ${MAX_CHECKED_APL_LENGTH} allowed`);
        }
        await this.source.ready?.();
        let problems: AplDiagnostic[];
        try {
            problems = await this.problems(text);
        } catch (err) {
            // Deep nesting overflows the checker's recursion: the input's fault, so a 400, not a 500.
            if (err instanceof RangeError) throw badRequest(`invalid ${field}: the query is nested too deeply to check (${err.message})`);
            throw err;
        }
        if (problems.length > 0) throw checkError(field, problems);
    }

    /**
     * Throws a 400 for the first error of query `text`, unless an unknown dataset comes first (the
     * evaluator answers 404 for it, as it did before queries were checked). Call it off the event loop.
     */
    async assertRunnable(text: string): Promise<void> {
        let first: AplDiagnostic | null | undefined;
        try {
            this.refreshSchema();
            first = this.verdicts.get(text);
            if (first === undefined) {
                const diagnostics = await checkText(text, { schema: this.schema, queryBlocks: false });
                // Sorted by position: the first problem in the text is the one reported.
                first = diagnostics.find((d) => d.severity === 'error' || DATASET_CODES.has(d.code)) ?? null;
                this.keepVerdict(text, first);
            }
        } catch {
            // Too deep for the checker's recursion, or a checker fault: the evaluator, with its own guards, decides.
            return;
        }
        if (first && !DATASET_CODES.has(first.code)) throw queryCheckError(first);
    }

    private keepVerdict(text: string, first: AplDiagnostic | null): void {
        if (text.length > VERDICT_TEXT_MAX) return;
        // The oldest verdict makes room (a Map iterates in insertion order).
        if (this.verdicts.size >= VERDICTS_KEPT) this.verdicts.delete(this.verdicts.keys().next().value!);
        this.verdicts.set(text, first);
    }

    /** Loads the datasets' current fields when they changed since the last check. */
    private refreshSchema(): void {
        const datasets: DatasetSchema[] = this.source.datasets().map((name) => ({
            name,
            fields: this.source.fields(name).map((f) => ({ name: f.name, type: typeFromAxiomFieldType(f.type) })),
        }));
        const key = JSON.stringify(datasets);
        if (key === this.schemaKey) return;
        this.schemaKey = key;
        this.verdicts.clear();
        this.schema.replace(datasets);
    }
}

/** `invalid aplQuery: <message> (line L, column C)`, with every problem in `detail`/`diagnostics` (1-based positions). */
function checkError(field: string, problems: AplDiagnostic[]): HttpError {
    const at = (d: AplDiagnostic) => ({ code: d.code, severity: d.severity, message: d.message, line: d.range.start.line + 1, column: d.range.start.character + 1 });
    const first = at(problems[0]);
    const syntax = first.code === Issues.SyntaxError.code;
    const more = problems.length > 1 ? ` (and ${problems.length - 1} more)` : '';
    return badRequest(`invalid ${field}: ${first.code} ${first.message} (line ${first.line}, column ${first.column})${more}`, {
        detail: {
            errorType: syntax ? 'syntax' : 'semantic',
            compileErrorCode: syntax ? 'syntax_error' : 'semantic_error',
            field,
            ...first,
        },
        diagnostics: problems.map(at),
    });
}

/** The evaluator's error body (errors.ts `queryErrorBody`) for a checker diagnostic, with its code and suggestion in `detail`. */
function queryCheckError(d: AplDiagnostic): HttpError {
    // APL1001 syntax, APL1002 nesting: the parser's refusals, as the evaluator reports them.
    const kind = d.code.startsWith('APL1') ? 'syntax' : 'semantic';
    const suggestion = (d.data as AplDiagnosticData | undefined)?.suggestion;
    const body = queryErrorBody(kind, d.message, d.range.start.line + 1, d.range.start.character + 1, { code: d.code, ...(suggestion ? { suggestion } : {}) });
    return new HttpError(400, body.message, { detail: body.detail });
}
