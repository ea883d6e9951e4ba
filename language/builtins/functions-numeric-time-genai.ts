/**
 * GenAI functions (Axiom-only) over a conversation: a dynamic array of messages shaped like
 * `{ role, content, tool_calls? }` (OpenAI style). Also understood:
 * - `content` given as an array of parts (`[{type: 'text', text: '...'}]`) or OpenTelemetry's
 *   `parts: [{type: 'text', content: '...'}]`; text parts are joined with a newline, other content is
 *   rendered as JSON text;
 * - the array arriving as JSON text in a string field.
 *
 * Missing messages (index out of range, no message with that role) give an empty string, as Axiom
 * documents; a null or non-array conversation gives null.
 *
 * Costs use a small built-in price list (`GENAI_PRICING`, USD per million tokens, public list prices);
 * an unknown model gives null. `genai_estimate_tokens` is the usual rough rule of one token per four
 * characters, rounded up.
 */
import type { AplValue, JsonValue } from '../values.js';
import type { ScalarFunction } from './catalogue-types.js';
import { asArray, asDynamic, categoryBuilder, num, p, sig, strict, str, toInt } from './functions-numeric-time-helpers.js';

const genai = (entry: Omit<ScalarFunction, 'kind' | 'category' | 'axiomOnly'>) => categoryBuilder('genai')({ ...entry, axiomOnly: true });

export interface ModelPricing {
    /** USD per million input (prompt) tokens. */
    input: number;
    /** USD per million output (completion) tokens. */
    output: number;
}

/** Built-in list prices, USD per million tokens. Keys are normalised model names (see `lookupModelPricing`). */
export const GENAI_PRICING: Readonly<Record<string, ModelPricing>> = {
    'gpt-4': { input: 30, output: 60 },
    'gpt-4-turbo': { input: 10, output: 30 },
    'gpt-4o': { input: 2.5, output: 10 },
    'gpt-4o-mini': { input: 0.15, output: 0.6 },
    'gpt-3.5-turbo': { input: 0.5, output: 1.5 },
    'o1': { input: 15, output: 60 },
    'claude-3-opus': { input: 15, output: 75 },
    'claude-3-sonnet': { input: 3, output: 15 },
    'claude-3-haiku': { input: 0.25, output: 1.25 },
    'claude-3-5-sonnet': { input: 3, output: 15 },
    'claude-3-5-haiku': { input: 0.8, output: 4 },
    'gemini-1.5-pro': { input: 1.25, output: 5 },
    'gemini-1.5-flash': { input: 0.075, output: 0.3 },
};

/**
 * Finds a model's prices. The name is matched case-insensitively after dropping a `provider/` prefix
 * and a version suffix: a date (`-2024-08-06`, `-20241022`), `-latest`, or a 4-digit snapshot (`-0613`).
 */
export function lookupModelPricing(model: string): ModelPricing | undefined {
    let name = model.trim().toLowerCase();
    name = name.slice(name.lastIndexOf('/') + 1);
    const candidates = [name];
    const undated = name.replace(/-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/, '');
    candidates.push(undated, undated.replace(/-\d{4}$/, ''));
    for (const c of candidates) {
        if (Object.prototype.hasOwnProperty.call(GENAI_PRICING, c)) return GENAI_PRICING[c];
    }
    return undefined;
}

/** Rough token estimate: one token per four characters (Unicode code points), rounded up. */
export function estimateTokens(text: string): number {
    return Math.ceil([...text].length / 4);
}

type Message = { [key: string]: JsonValue };

function messagesOf(v: AplValue): Message[] | undefined {
    const arr = asArray(v);
    if (!arr) return undefined;
    return arr.filter((m): m is Message => m !== null && typeof m === 'object' && !Array.isArray(m));
}

function roleOf(m: Message): string {
    return typeof m.role === 'string' ? m.role : '';
}

function partText(part: JsonValue): string | undefined {
    if (typeof part === 'string') return part;
    if (part && typeof part === 'object' && !Array.isArray(part)) {
        if (typeof part.text === 'string') return part.text;
        if (typeof part.content === 'string') return part.content;
    }
    return undefined;
}

/** A message's text content. */
export function messageContent(m: Message): string {
    const c = m.content ?? m.parts ?? null;
    if (c === null) return '';
    if (typeof c === 'string') return c;
    if (Array.isArray(c)) {
        const texts = c.map(partText).filter((t): t is string => t !== undefined);
        if (texts.length > 0 || c.length === 0) return texts.join('\n');
    }
    return JSON.stringify(c);
}

function indexAt<T>(items: T[], index: number): T | undefined {
    const i = index < 0 ? items.length + index : index;
    return i >= 0 && i < items.length ? items[i] : undefined;
}

/** Content of the first (or last) message with the role, '' if none. */
function contentByRole(messages: Message[], roles: readonly string[], last: boolean): string {
    const list = last ? [...messages].reverse() : messages;
    const m = list.find(x => roles.includes(roleOf(x).toLowerCase()));
    return m ? messageContent(m) : '';
}

function toolCallsOf(m: Message): JsonValue[] {
    const out: JsonValue[] = [];
    if (Array.isArray(m.tool_calls)) out.push(...m.tool_calls);
    if (m.function_call && typeof m.function_call === 'object') out.push(m.function_call);
    return out;
}

/** Finish reasons that mean the output was cut off by a length limit. */
export const TRUNCATION_FINISH_REASONS: readonly string[] = ['length', 'max_tokens', 'max_output_tokens', 'model_length'];

function onMessages<T extends AplValue>(f: (messages: Message[], args: AplValue[]) => T) {
    return strict(args => {
        const messages = messagesOf(args[0]);
        return messages ? f(messages, args) : null;
    });
}

function costOf(which: 'input' | 'output' | 'both') {
    return strict(args => {
        const model = str(args[0]);
        if (model === undefined) return null;
        const pricing = lookupModelPricing(model);
        if (!pricing) return null;
        const a = num(args[1]);
        if (a === undefined) return null;
        if (which === 'input') return (a * pricing.input) / 1e6;
        if (which === 'output') return (a * pricing.output) / 1e6;
        const b = num(args[2]);
        return b === undefined ? null : (a * pricing.input + b * pricing.output) / 1e6;
    });
}

const messagesParam = p('messages', 'array', { description: 'A dynamic array of `{role, content}` messages.' });
const modelParam = p('model', 'string', { description: 'A model name such as `gpt-4o` or `claude-3-5-sonnet-20241022`.' });
const sample = "['otel-demo-genai']";
const messagesField = "['attributes.gen_ai.input.messages']";

export const GENAI_FUNCTIONS: ScalarFunction[] = [
    genai({
        name: 'genai_concat_contents',
        signatures: [sig(messagesParam, p('separator', 'string', { optional: true }))],
        returns: 'string',
        description: 'Joins the text of every message into one string, separated by `separator` (default a space).',
        example: `${sample} | extend transcript = genai_concat_contents(${messagesField}, ' / ')`,
        evaluate: onMessages((messages, args) => {
            const sep = args[1] === undefined ? ' ' : str(args[1]) ?? ' ';
            return messages.map(messageContent).join(sep);
        }),
    }),
    genai({
        name: 'genai_conversation_turns',
        signatures: [sig(messagesParam)],
        returns: 'long',
        description: 'The number of turns: user messages that get an assistant reply before the next user message.',
        example: `${sample} | extend turns = genai_conversation_turns(${messagesField})`,
        evaluate: onMessages(messages => {
            let turns = 0;
            let waiting = false;
            for (const m of messages) {
                const role = roleOf(m).toLowerCase();
                if (role === 'user') waiting = true;
                else if (role === 'assistant' && waiting) {
                    turns++;
                    waiting = false;
                }
            }
            return turns;
        }),
    }),
    genai({
        name: 'genai_cost',
        signatures: [sig(modelParam, p('input_tokens', 'long'), p('output_tokens', 'long'))],
        returns: 'real',
        description: 'The USD cost of a call from the model\'s built-in per-token prices; null for a model not in the price list.',
        example: "print cost = genai_cost('gpt-4o', 1200, 350)",
        evaluate: costOf('both'),
    }),
    genai({
        name: 'genai_estimate_tokens',
        signatures: [sig(p('text', 'string'))],
        returns: 'long',
        description: 'A rough token count for a text: its length in characters divided by four, rounded up.',
        example: "print tokens = genai_estimate_tokens('How do I reset my password?')",
        evaluate: strict(args => {
            const t = str(args[0]);
            return t === undefined ? null : estimateTokens(t);
        }),
    }),
    genai({
        name: 'genai_extract_assistant_response',
        signatures: [sig(messagesParam)],
        returns: 'string',
        description: 'The text of the last assistant message, or an empty string.',
        example: `${sample} | extend answer = genai_extract_assistant_response(${messagesField})`,
        evaluate: onMessages(messages => contentByRole(messages, ['assistant'], true)),
    }),
    genai({
        name: 'genai_extract_function_results',
        signatures: [sig(messagesParam)],
        returns: 'dynamic',
        description: 'A dynamic array of the contents of the `tool`/`function` messages (JSON text parsed), or null when there are none.',
        example: `${sample} | extend results = genai_extract_function_results(${messagesField})`,
        evaluate: onMessages(messages => {
            const results = messages
                .filter(m => ['tool', 'function'].includes(roleOf(m).toLowerCase()))
                .map(m => {
                    const c = m.content ?? null;
                    if (typeof c !== 'string') return c;
                    const parsed = asDynamic(c);
                    return parsed === undefined ? c : parsed;
                });
            return results.length > 0 ? results : null;
        }),
    }),
    genai({
        name: 'genai_extract_system_prompt',
        signatures: [sig(messagesParam)],
        returns: 'string',
        description: 'The text of the first system (or developer) message, or an empty string.',
        example: `${sample} | extend system_prompt = genai_extract_system_prompt(${messagesField})`,
        evaluate: onMessages(messages => contentByRole(messages, ['system', 'developer'], false)),
    }),
    genai({
        name: 'genai_extract_tool_calls',
        signatures: [sig(messagesParam)],
        returns: 'dynamic',
        description: 'A dynamic array of all tool calls requested in the conversation (each message\'s `tool_calls`), or null when there are none.',
        example: `${sample} | extend calls = genai_extract_tool_calls(${messagesField}) | extend tool = tostring(calls[0]['function']['name'])`,
        evaluate: onMessages(messages => {
            const calls = messages.flatMap(toolCallsOf);
            return calls.length > 0 ? calls : null;
        }),
    }),
    genai({
        name: 'genai_extract_user_prompt',
        signatures: [sig(messagesParam)],
        returns: 'string',
        description: 'The text of the last user message, or an empty string.',
        example: `${sample} | extend question = genai_extract_user_prompt(${messagesField})`,
        evaluate: onMessages(messages => contentByRole(messages, ['user'], true)),
    }),
    genai({
        name: 'genai_get_content_by_index',
        signatures: [sig(messagesParam, p('index', 'long'))],
        returns: 'string',
        description: 'The text of the message at a zero-based position (negative counts from the end), or an empty string when out of range.',
        example: `${sample} | extend first = genai_get_content_by_index(${messagesField}, 0)`,
        evaluate: onMessages((messages, args) => {
            const i = toInt(args[1]);
            const m = i === undefined ? undefined : indexAt(messages, i);
            return m ? messageContent(m) : '';
        }),
    }),
    genai({
        name: 'genai_get_content_by_role',
        signatures: [sig(messagesParam, p('role', 'string'))],
        returns: 'string',
        description: 'The text of the first message with the given role (`user`, `assistant`, `system`, `tool`...), or an empty string.',
        example: `${sample} | extend system_content = genai_get_content_by_role(${messagesField}, 'system')`,
        evaluate: onMessages((messages, args) => {
            const role = str(args[1]);
            return role === undefined ? '' : contentByRole(messages, [role.toLowerCase()], false);
        }),
    }),
    genai({
        name: 'genai_get_pricing',
        signatures: [sig(modelParam)],
        returns: 'dynamic',
        description: 'The built-in prices of a model as `{input_price_per_million, output_price_per_million}` (USD), or null for an unknown model.',
        example: "print pricing = genai_get_pricing('gpt-4')",
        evaluate: strict(args => {
            const model = str(args[0]);
            const pricing = model === undefined ? undefined : lookupModelPricing(model);
            return pricing ? { input_price_per_million: pricing.input, output_price_per_million: pricing.output } : null;
        }),
    }),
    genai({
        name: 'genai_get_role',
        signatures: [sig(messagesParam, p('index', 'long'))],
        returns: 'string',
        description: 'The role of the message at a zero-based position (negative counts from the end), or an empty string when out of range.',
        example: `${sample} | extend first_role = genai_get_role(${messagesField}, 0)`,
        evaluate: onMessages((messages, args) => {
            const i = toInt(args[1]);
            const m = i === undefined ? undefined : indexAt(messages, i);
            return m ? roleOf(m) : '';
        }),
    }),
    genai({
        name: 'genai_has_tool_calls',
        signatures: [sig(messagesParam)],
        returns: 'bool',
        description: 'True when any message requests a tool call.',
        example: `${sample} | summarize countif(genai_has_tool_calls(${messagesField}))`,
        evaluate: onMessages(messages => messages.some(m => toolCallsOf(m).length > 0)),
    }),
    genai({
        name: 'genai_input_cost',
        signatures: [sig(modelParam, p('input_tokens', 'long'))],
        returns: 'real',
        description: 'The USD cost of the input (prompt) tokens from the model\'s built-in price; null for an unknown model.',
        example: "print cost = genai_input_cost('gpt-4o', 1200)",
        evaluate: costOf('input'),
    }),
    genai({
        name: 'genai_is_truncated',
        signatures: [sig(messagesParam, p('finish_reason', 'scalar', { description: 'A finish reason, or a dynamic array of them.' }))],
        returns: 'bool',
        description:
            'True when the finish reason (or any of an array of them, or else the last message\'s `finish_reason`) says the output hit a length limit: `length`, `max_tokens`, `max_output_tokens`.',
        example: `${sample} | extend cut = genai_is_truncated(${messagesField}, ['attributes.gen_ai.response.finish_reasons'])`,
        evaluate: args => {
            let reasons: JsonValue | undefined = args[1] === null || args[1] === undefined ? null : asDynamic(args[1]);
            if (reasons === null || reasons === '') {
                const last = args[0] === null ? undefined : messagesOf(args[0])?.at(-1);
                reasons = last?.finish_reason ?? null;
            }
            const list = Array.isArray(reasons) ? reasons : [reasons];
            return list.some(r => typeof r === 'string' && TRUNCATION_FINISH_REASONS.includes(r.trim().toLowerCase()));
        },
    }),
    genai({
        name: 'genai_message_roles',
        signatures: [sig(messagesParam)],
        returns: 'dynamic',
        description: 'A dynamic array of the roles of the messages, in order.',
        example: `${sample} | extend roles = genai_message_roles(${messagesField})`,
        evaluate: onMessages(messages => messages.map(roleOf)),
    }),
    genai({
        name: 'genai_output_cost',
        signatures: [sig(modelParam, p('output_tokens', 'long'))],
        returns: 'real',
        description: 'The USD cost of the output (completion) tokens from the model\'s built-in price; null for an unknown model.',
        example: "print cost = genai_output_cost('gpt-4o', 350)",
        evaluate: costOf('output'),
    }),
];
