/**
 * Dataset naming rules.
 *
 * - Creating a dataset in the embedded service follows the service spec (section 2.1): 1–128
 *   characters, ASCII letters, digits and `-`.
 * - Querying is more lenient: the live Axiom endpoint also has datasets with `_` and `.` in their
 *   names (API.md §1; the docs query `sample_dataset` and `my_traces`), so a query naming one is not
 *   an error. The validator reports names that no Axiom deployment could hold.
 */
const CREATABLE = /^[A-Za-z0-9-]{1,128}$/;
const QUERYABLE = /^[A-Za-z0-9._-]{1,128}$/;

export function isValidDatasetName(name: string): boolean {
    return CREATABLE.test(name);
}

export function isQueryableDatasetName(name: string): boolean {
    return QUERYABLE.test(name);
}

/** Why a name cannot be used to create a dataset, or undefined when it can. */
export function datasetNameProblem(name: string): string | undefined {
    if (name.length === 0) return 'a dataset name cannot be empty';
    if (name.length > 128) return `dataset name '${name.slice(0, 20)}…' is ${name.length} characters long; at most 128 are allowed`;
    const bad = [...name].find(c => !/[A-Za-z0-9-]/.test(c));
    if (bad !== undefined) return `dataset name '${name}' contains '${bad}'; only ASCII letters, digits and '-' are allowed`;
    return undefined;
}
