/**
 * Checks APL the service stores (a monitor's query) with the checker of `apl check`
 * (language/check.ts), against the service's own datasets and fields, and turns the first problem
 * into a 400 that names the field, the diagnostic code and the line/column.
 *
 * The schema is authoritative here (it is the service's own data), so an unknown dataset, a
 * warning for editors that may lack a schema, is refused too: such a query could never run.
 */
import { checkText, type AplDiagnostic } from '../../language/check.js';
import { Issues } from '../../language/apl-issue-codes.js';
import { MutableSchemaProvider, type DatasetSchema } from '../../language/schema/index.js';
import { typeFromAxiomFieldType } from '../../language/types/apl-types.js';
import type { DataPlane } from './data.js';
import { badRequest, type HttpError } from './errors.js';

/**
 * Longest query text checked. The check runs on the event loop at roughly 30-40 µs per character
 * (measured here: 12 KB in 0.4-0.5 s, 50 KB in 2 s), so this bounds the pause one request causes
 * to about half a second; monitor queries are a few hundred characters.
 */
export const MAX_CHECKED_APL_LENGTH = 16 * 1024;

export class ServiceAplChecker {
    /** One provider for the service's lifetime: the checker's services are built once per provider. */
    private readonly schema = new MutableSchemaProvider();
    private schemaKey = '';

    constructor(private readonly data: DataPlane) {}

    /** The problems that make `text` unusable as a stored query (errors, unknown datasets). */
    async problems(text: string): Promise<AplDiagnostic[]> {
        this.refreshSchema();
        const diagnostics = await checkText(text, { schema: this.schema });
        return diagnostics.filter((d) => d.severity === 'error' || d.code === Issues.UnknownDataset.code);
    }

    /** Throws a 400 for the first problem of `text`, given in body field `field`. */
    async assertValid(field: string, text: string): Promise<void> {
        if (text.length > MAX_CHECKED_APL_LENGTH) {
            throw badRequest(`invalid ${field}: ${text.length} characters, at most ${MAX_CHECKED_APL_LENGTH} allowed`);
        }
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

    /** Loads the datasets' current fields when they changed since the last check. */
    private refreshSchema(): void {
        const datasets: DatasetSchema[] = this.data.listDatasets().map((m) => ({
            name: m.name,
            fields: this.data.engine.fields(m.name).map((f) => ({ name: f.name, type: typeFromAxiomFieldType(f.type) })),
        }));
        const key = JSON.stringify(datasets);
        if (key === this.schemaKey) return;
        this.schemaKey = key;
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
