/** Markdown for catalogue entries, shared by hover, completion and signature help. */
import { formatSignature, type AggregateFunction, type ScalarFunction, type ScalarOperatorEntry, type TabularOperatorEntry } from '../builtins/index.js';

function fence(code: string): string {
    return '```apl\n' + code + '\n```';
}

export function functionSignatures(entry: ScalarFunction | AggregateFunction, name = entry.name): string[] {
    return entry.signatures.map(sig => formatSignature(name, sig));
}

/** Signature(s), description, example; for a function or an aggregation. */
export function functionMarkdown(entry: ScalarFunction | AggregateFunction, name = entry.name): string {
    const parts = [fence(functionSignatures(entry, name).join('\n'))];
    const tags: string[] = [];
    if (entry.kind === 'aggregate') tags.push('aggregation');
    if (entry.axiomOnly) tags.push('Axiom only');
    if (entry.kind === 'aggregate' && entry.estimate) tags.push('estimate');
    if (entry.aliases?.length) tags.push(`also: ${[entry.name, ...entry.aliases].filter(n => n !== name).join(', ')}`);
    if (tags.length) parts.push(`*${tags.join(' · ')}*`);
    parts.push(entry.description);
    if (entry.example) parts.push('**Example**\n\n' + fence(entry.example));
    return parts.join('\n\n');
}

export function tabularOperatorMarkdown(entry: TabularOperatorEntry): string {
    const parts = [fence(entry.syntax)];
    if (entry.axiomOnly) parts.push('*Axiom only*');
    parts.push(entry.description);
    if (entry.example) parts.push('**Example**\n\n' + fence(entry.example));
    return parts.join('\n\n');
}

export function scalarOperatorMarkdown(entry: ScalarOperatorEntry): string {
    const parts = [fence(`a ${entry.name} b`)];
    const tags: string[] = [entry.category];
    if (entry.caseSensitive !== undefined) tags.push(entry.caseSensitive ? 'case-sensitive' : 'case-insensitive');
    if (entry.negation) tags.push(`negation: \`${entry.negation}\``);
    if (entry.axiomOnly) tags.push('Axiom only');
    parts.push(`*${tags.join(' · ')}*`);
    parts.push(entry.description);
    if (entry.example) parts.push('**Example**\n\n' + fence(entry.example));
    return parts.join('\n\n');
}

export { fence };

/**
 * Text that is not ours (a schema file's field description, a service's answer) as Markdown that
 * shows it literally: every Markdown punctuation character is backslash-escaped, so no image (a
 * tracking pixel on hover), link, reference definition or HTML tag in it is rendered. Line breaks stay.
 */
export function markdownText(text: string): string {
    return text.replace(/[\\`*_{}[\]()#+\-.!|<>~&:"'=]/g, c => `\\${c}`);
}
