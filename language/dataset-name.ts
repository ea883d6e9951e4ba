/**
 * The dataset naming rule (the service spec, section 2.1): 1–128 characters, ASCII letters, digits
 * and `-`. One definition for the validator, the store and the HTTP service.
 */
const DATASET_NAME = /^[A-Za-z0-9-]{1,128}$/;

export function isValidDatasetName(name: string): boolean {
    return DATASET_NAME.test(name);
}

/** Why a name is not a valid dataset name, or undefined when it is. */
export function datasetNameProblem(name: string): string | undefined {
    if (name.length === 0) return 'a dataset name cannot be empty';
    if (name.length > 128) return `dataset name '${name.slice(0, 20)}…' is ${name.length} characters long; at most 128 are allowed`;
    const bad = [...name].find(c => !/[A-Za-z0-9-]/.test(c));
    if (bad !== undefined) return `dataset name '${name}' contains '${bad}'; only ASCII letters, digits and '-' are allowed`;
    return undefined;
}
