/**
 * THE table of APL diagnostics: one entry per problem, with a stable code (`APL0001…`), a severity
 * and a message builder. The validator reports through it, quick fixes switch on `data.code`, and
 * tests assert codes (never message prose). `APL1001` is the syntax error (lexer/parser), reported
 * by `check` and the CLI; `APL1002`–`APL1004` are the parser's limits (limits.ts).
 */
import { MAX_CHECKED_LENGTH } from './limits.js';

export type IssueSeverity = 'error' | 'warning' | 'info' | 'hint';

export interface IssueDefinition<A> {
    /** The stable code, also set as the diagnostic's `code` and `data.code`. */
    readonly code: string;
    /** A readable identifier (`unknown-function`). */
    readonly id: string;
    readonly severity: IssueSeverity;
    readonly message: (args: A) => string;
    /** What the problem means and how to fix it, for any occurrence (SARIF rule help, docs). */
    readonly help: string;
}

function issue<A>(code: string, id: string, severity: IssueSeverity, message: (args: A) => string, help: string): IssueDefinition<A> {
    return { code, id, severity, message, help };
}

const suggest = (s: string | undefined) => (s ? ` Did you mean '${s}'?` : '');

export const Issues = {
    UnknownFunction: issue<{ name: string; suggestion?: string }>('APL0001', 'unknown-function', 'error',
        ({ name, suggestion }) => `'${name}' is not a known function or aggregation.${suggest(suggestion)}`,
        "The name is neither a scalar function nor an aggregation of APL. Check the spelling (a close name is suggested when there is one) or see the list of functions in the APL reference."),
    WrongArgumentCount: issue<{ name: string; count: number; expected: string }>('APL0002', 'wrong-argument-count', 'error',
        ({ name, count, expected }) => `'${name}' takes ${expected}, but ${count} ${count === 1 ? 'was' : 'were'} given.`,
        "The function is called with a number of arguments that none of its signatures takes. Hover the function name or use signature help to see its parameters."),
    ArgumentTypeMismatch: issue<{ name: string; position: number; expected: string; actual: string }>('APL0003', 'argument-type-mismatch', 'error',
        ({ name, position, expected, actual }) => `Argument ${position} of '${name}' must be ${expected}, not ${actual}.`,
        "An argument has a type the function never accepts, for example a string where a number is needed. Convert it first (toint(), toreal(), todatetime(), tostring())."),
    OperandTypeMismatch: issue<{ operator: string; left: string; right: string }>('APL0004', 'operand-type-mismatch', 'error',
        ({ operator, left, right }) => `The operator '${operator}' cannot be applied to ${left} and ${right}.`,
        "The operator is not defined for these operand types, for example adding a string to a number. Convert an operand, or use strcat() to join strings."),
    PredicateNotBool: issue<{ operator: string; actual: string }>('APL0005', 'predicate-not-bool', 'error',
        ({ operator, actual }) => `The '${operator}' predicate must be a bool expression, not ${actual}.`,
        "A where (or similar) predicate must be a bool expression; a number or string is not true or false in APL. Compare it with something (== , >, contains ...)."),
    AggregationOutsideSummarize: issue<{ name: string }>('APL0006', 'aggregation-outside-summarize', 'error',
        ({ name }) => `The aggregation '${name}' can only be used in summarize or make-series, and not inside another aggregation.`,
        "Aggregations (count(), sum(), avg(), ...) produce one value per group, so they are allowed only as the aggregations of summarize or make-series, not in where, extend, a by clause or another aggregation."),
    InvalidDatasetName: issue<{ name: string }>('APL0007', 'invalid-dataset-name', 'error',
        ({ name }) => `'${name}' is not a valid dataset name: use 1 to 128 ASCII letters, digits, '-', '_' or '.'.`,
        "Dataset names have 1 to 128 characters: ASCII letters, digits, '-', '_' and '.'. Quote a name with other characters as ['name'] only if the dataset really has it."),
    DuplicateColumn: issue<{ name: string; operator: string }>('APL0008', 'duplicate-column', 'error',
        ({ name, operator }) => `The column '${name}' is defined more than once in ${operator}.`,
        "Two output columns of one operator would have the same name. Name one of them explicitly (name = expression)."),
    WeekTimespan: issue<{ text: string }>('APL0009', 'week-timespan', 'warning',
        ({ text }) => `'${text}': the week suffix is not standard KQL; write days instead (7d per week).`,
        "The week suffix (2w) is an Axiom extension that KQL lacks; write the number of days (14d) to stay portable."),
    BareNull: issue<Record<string, never>>('APL0010', 'bare-null', 'error',
        () => `A bare 'null' is not a value in APL; use a typed null such as long(null), string or dynamic(null).`,
        "APL has no untyped null value. Use a typed null such as long(null), real(null), string(null) or dynamic(null)."),
    UnknownDataset: issue<{ name: string; suggestion?: string }>('APL0011', 'unknown-dataset', 'warning',
        ({ name, suggestion }) => `The dataset '${name}' is not in the schema.${suggest(suggestion)}`,
        "The schema in use has no dataset with this name. Check the spelling, or update the schema file (apl.schemaFile, --schema)."),
    UnknownField: issue<{ name: string; suggestion?: string }>('APL0012', 'unknown-field', 'warning',
        ({ name, suggestion }) => `The field '${name}' does not exist here.${suggest(suggestion)}`,
        "No column of this name exists at this point of the pipeline (after project, summarize and similar operators only their output columns remain). Check the spelling, or the schema in use."),
    StringNumberComparison: issue<{ operator: string; stringSide: string }>('APL0013', 'string-number-comparison', 'warning',
        ({ operator, stringSide }) => `'${stringSide}' is a string compared with a number using '${operator}'; compare with a string (e.g. "200") or convert with toint()/toreal().`,
        "A string field compared with a number compares text with a number, which is never what was meant (status == 200 on a string status is false for every row). Compare with a string, or convert the field with toint()/toreal()."),
    NotIndexable: issue<{ message: string }>('APL0014', 'not-indexable', 'error', ({ message }) => message,
        "Only dynamic values (arrays and property bags) can be indexed with [ ]. A literal followed by [ on the next line is usually two queries on consecutive lines: a blank line separates queries (as in every Kusto editor), so put one between them."),
    SummarizeWithoutAggregation: issue<{ text: string }>('APL0015', 'summarize-without-aggregation', 'error',
        ({ text }) => `'${text}' has no aggregation: each summarize column before 'by' must aggregate (count(), sum(x), make_list(x), take_any(x), ...).`,
        "summarize makes one row per group, so each of its columns before 'by' needs an aggregation to turn the group's rows into one value. Wrap the expression in one (make_list(), take_any(), max(), ...), or compute it with extend before or after the summarize."),
    TakeAfterTimeBins: issue<{ keyword: string; count: string; otherKeys: boolean }>('APL0016', 'take-after-time-bins', 'info',
        ({ keyword, count, otherKeys }) =>
            otherKeys
                ? `After a summarize by a time bin, '${keyword} ${count}' keeps the ${count} groups with the largest first aggregation in every time bin, not ${count} rows in all (Axiom's rule). To get ${count} rows, sort first or use top.`
                : `After a summarize by a time bin alone, '${keyword} ${count}' keeps every time bin (Axiom's rule), not ${count} rows. To get ${count} rows, sort first or use top.`,
        "Axiom treats take/limit after a summarize whose first key is a time bin (bin(_time, …), bin_auto(_time)) as a limit on the groups of every time bin, so a chart keeps its time axis. KQL users expect N rows; sort first (| sort by … | take N) or use top N by … for that."),
    NoRender: issue<Record<string, never>>('APL0017', 'no-render', 'error',
        () => "APL has no 'render': remove this stage. A time-binned summarize (summarize … by bin(_time, …)) is charted on its own.",
        "render is KQL's chart stage (render timechart, render piechart …); APL has none, and Axiom refuses a query that uses it. Remove the stage (the quick fix does): Axiom and the VS Code extension chart a summarize by a time bin on their own."),
    LaterCellName: issue<{ name: string; cell: number }>('APL0050', 'later-cell-name', 'error',
        ({ name, cell }) => `'${name}' is defined by a later cell (cell ${cell}): a notebook runs as one script in cell order, so move that cell above this one.`,
        "In an APL notebook, a cell sees the let statements and `// as NAME` results of the cells above it only. A name that only a cell below defines is not defined when this cell runs: move the defining cell up, or the definition into this cell."),
    SyntaxError: issue<{ message: string }>('APL1001', 'syntax-error', 'error', ({ message }) => message,
        "The query does not parse. The message says what was expected where; fix the text at that position."),
    NestingTooDeep: issue<{ message: string }>('APL1002', 'nesting-too-deep', 'error', ({ message }) => message,
        "The query nests deeper than the parser allows (25 levels of parentheses or calls are always accepted, 450 prefix operators in a row, 1,000 operators in a chain). Flatten it: use let statements for subexpressions, in (...) instead of long or chains."),
    TextTooLarge: issue<{ message: string }>('APL1003', 'text-too-large', 'error', ({ message }) => message,
        "The text is longer than 1 MiB, so it is not analysed at all. Split it into smaller files or queries."),
    SyntaxOnly: issue<{ length: number }>('APL1004', 'syntax-only', 'info',
        ({ length }) => `This text has ${length.toLocaleString('en-US')} characters, more than ${MAX_CHECKED_LENGTH.toLocaleString('en-US')}: only its syntax is checked.`,
        "Texts longer than 256 KiB are checked for syntax only, to keep checking fast; names and types are not checked. Split the text to have it fully checked."),
} as const;

export type IssueName = keyof typeof Issues;

/** Codes by name, for quick fixes: `IssueCodes.UnknownFunction === 'APL0001'`. */
export const IssueCodes: { readonly [K in IssueName]: string } = Object.fromEntries(
    Object.entries(Issues).map(([k, v]) => [k, v.code]),
) as { [K in IssueName]: string };

const byCode = new Map<string, IssueDefinition<never>>(Object.values(Issues).map(i => [i.code, i as IssueDefinition<never>]));

/** The definition behind a code, or undefined. */
export function issueByCode(code: string): IssueDefinition<never> | undefined {
    return byCode.get(code);
}

/** Every definition, in code order (for docs and `apl check --list-codes`). */
export function allIssues(): IssueDefinition<never>[] {
    return [...byCode.values()].sort((a, b) => a.code.localeCompare(b.code));
}

/** The `data` attached to a diagnostic: the code, plus the replacement a quick fix applies. */
export interface AplDiagnosticData {
    code: string;
    suggestion?: string;
}

/** Levenshtein distance, capped: returns `max + 1` as soon as the distance exceeds `max`. */
export function editDistance(a: string, b: string, max = Infinity): number {
    if (Math.abs(a.length - b.length) > max) return max + 1;
    let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
    for (let i = 1; i <= a.length; i++) {
        const cur = [i];
        let rowMin = i;
        for (let j = 1; j <= b.length; j++) {
            const v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
            cur.push(v);
            if (v < rowMin) rowMin = v;
        }
        if (rowMin > max) return max + 1;
        prev = cur;
    }
    return prev[b.length];
}

/**
 * The closest candidate to `name`, or undefined when nothing is close. Ranked by, in order of
 * strength: a case-insensitive match; an edit distance within about a third of the name's length;
 * an abbreviation (`cnt` for `count`: the same first letter, the letters in order). `preferred`
 * candidates (what fits the position, e.g. aggregations inside `summarize`) win over others of a
 * rank just below, so `summarize cnt()` suggests `count`, not the scalar `cot`.
 */
export function didYouMean(name: string, candidates: Iterable<string>, preferred?: (candidate: string) => boolean): string | undefined {
    const lower = name.toLowerCase();
    const max = Math.max(1, Math.floor(name.length / 3));
    let best: string | undefined;
    let bestScore = Infinity;
    for (const c of candidates) {
        if (c === name) continue;
        let score: number;
        if (c.toLowerCase() === lower) score = -10;
        else {
            const d = editDistance(name, c, max);
            if (d <= max) score = d;
            else if (isAbbreviation(lower, c.toLowerCase())) score = max + 0.5;
            else continue;
        }
        // Shorter candidates first among equals: `count` before `countif` for `cnt`.
        score += (Math.abs(c.length - name.length) / 100) - (preferred?.(c) ? 1 : 0);
        if (score < bestScore) {
            best = c;
            bestScore = score;
        }
    }
    return best;
}

/** `abbr` is `word` with letters left out: same first letter, the rest in order (`cnt`, `count`). */
function isAbbreviation(abbr: string, word: string): boolean {
    if (abbr.length < 2 || word.length > abbr.length * 3 || abbr[0] !== word[0]) return false;
    let i = 1;
    for (let j = 1; j < word.length && i < abbr.length; j++) if (word[j] === abbr[i]) i++;
    return i === abbr.length;
}
