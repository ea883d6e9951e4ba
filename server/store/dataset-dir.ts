/**
 * The directory a dataset lives in, under `<data dir>/datasets/`. Dataset names are ASCII letters,
 * digits and `-`, and case matters (`big` and `BIG` are two datasets), but macOS and Windows file
 * systems ignore case, and Windows refuses CON, PRN, AUX, NUL, COM0–9 and LPT0–9 in any case. So:
 *
 * - an upper-case letter is written `_` + its lower case (`BIG` → `_b_i_g`, `Big` → `_big`);
 * - a result that Windows reserves gets a trailing `_` (`con` → `con_`).
 *
 * `_` is not allowed in a dataset name, so the mapping is one-to-one, and it is the identity for
 * every name that was already safe (lower case, not reserved): those directories keep their name.
 * Directories of the previous layout (named exactly as the dataset) are renamed at open (store.ts).
 */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

export function datasetDirName(name: string): string {
    const lower = name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    return WINDOWS_RESERVED.test(lower) ? `${lower}_` : lower;
}

/** The dataset name of a directory written by datasetDirName (the inverse). */
export function datasetNameOfDir(dir: string): string {
    return dir.replace(/_$/, '').replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase());
}
