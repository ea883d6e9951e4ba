/** The built-ins catalogue (language/builtins) as `apl_reference` and the apl://catalogue resource show it. */
import { didYouMean } from '../../language/apl-issue-codes.js';
import {
    AGGREGATES, formatSignature, lookupAggregate, lookupScalarFunction, lookupScalarOperator, lookupTabularOperator,
    SCALAR_FUNCTIONS, SCALAR_OPERATORS, TABULAR_OPERATORS, type CatalogueEntry,
} from '../../language/builtins/index.js';
import { ToolProblem } from './data-source.js';

export interface CatalogueEntryView {
    kind: 'scalar function' | 'aggregation' | 'tabular operator' | 'scalar operator';
    name: string;
    aliases: string[];
    signatures: string[];
    description: string;
    example: string;
    axiomOnly: boolean;
}

const KIND_NAMES = { scalar: 'scalar function', aggregate: 'aggregation', tabular: 'tabular operator', operator: 'scalar operator' } as const;

export function catalogueEntryView(entry: CatalogueEntry): CatalogueEntryView {
    const signatures =
        entry.kind === 'scalar' || entry.kind === 'aggregate' ? entry.signatures.map(s => formatSignature(entry.name, s)) : entry.kind === 'tabular' ? [entry.syntax] : [];
    return {
        kind: KIND_NAMES[entry.kind],
        name: entry.name,
        aliases: 'aliases' in entry ? (entry.aliases ?? []) : [],
        signatures,
        description: entry.description,
        example: entry.example,
        axiomOnly: entry.axiomOnly === true,
    };
}

/** Every entry named `name` (a name can be an aggregation and an operator: `count`), or a ToolProblem with a suggestion. */
export function lookupCatalogueEntry(name: string): CatalogueEntry[] {
    const found = [lookupScalarFunction(name), lookupAggregate(name), lookupTabularOperator(name), lookupScalarOperator(name)].filter((e): e is CatalogueEntry => e !== undefined);
    if (found.length > 0) return found;
    const suggestion = didYouMean(name, allCatalogueNames());
    throw new ToolProblem(`'${name}' is not an APL function, aggregation or operator${suggestion ? `; did you mean '${suggestion}'?` : ''} (the apl://catalogue resource lists them all)`);
}

function allCatalogueNames(): string[] {
    return [...SCALAR_FUNCTIONS, ...AGGREGATES, ...TABULAR_OPERATORS].flatMap(e => [e.name, ...(e.aliases ?? [])]).concat(SCALAR_OPERATORS.map(o => o.name));
}

/** The whole catalogue, for the apl://catalogue resource. */
export function wholeCatalogue(): CatalogueEntryView[] {
    return [...TABULAR_OPERATORS, ...SCALAR_FUNCTIONS, ...AGGREGATES, ...SCALAR_OPERATORS].map(catalogueEntryView);
}
