/**
 * The APL parser: Langium's parser plus the guards that make any input safe to parse.
 *
 * - Nesting is bounded (limits.ts): past the bound the parse stops with one APL1002 error at the
 *   token where it happened, instead of a stack overflow deep inside chevrotain.
 * - Any failure leaves the parser clean for the next text. Langium's parser is shared by every
 *   request of a process, and an exception used to leave its node stack half full, so that later,
 *   valid queries failed ("Parser stack is not empty after parsing").
 * - Texts longer than MAX_PARSED_LENGTH are not parsed: one APL1003 error says so.
 * - Building the syntax tree is linear: Langium looks a new node up in its container from the
 *   front, which made long pipelines quadratic; here the lookup starts at the end, where the node is.
 */
import type { IToken, TokenType } from 'chevrotain';
import {
    CstNodeBuilder,
    LangiumCompletionParser,
    LangiumParser,
    RootCstNodeImpl,
    type AstNode,
    type CstNode,
    type CompositeCstNode,
    type GrammarAST,
    type LangiumCoreServices,
    type ParseResult,
} from 'langium';
import type { CompletionParserResult } from 'langium';
import { MAX_BRACKET_NESTING, MAX_PARSED_LENGTH, MAX_PARSER_RULE_DEPTH, MAX_SYNTAX_TREE_DEPTH } from '../limits.js';

/** Why a text was not parsed (or its parse was abandoned): the code and the offending position. */
export interface ParseLimitProblem {
    code: 'APL1002' | 'APL1003';
    message: string;
    offset: number;
}

const limitProblems = new WeakMap<AstNode, ParseLimitProblem>();

/** The limit a parse result's root ran into, if any (its only error is then that one). */
export function parseLimitOf(root: AstNode | undefined): ParseLimitProblem | undefined {
    return root ? limitProblems.get(root) : undefined;
}

class ParseLimitError extends Error {
    constructor(readonly problem: ParseLimitProblem) {
        super(problem.message);
    }
}

export function nestingMessage(): string {
    return `the query is nested too deeply here: ${MAX_BRACKET_NESTING} levels of parentheses or calls, ${MAX_PARSER_RULE_DEPTH} prefix operators in a row and ${MAX_SYNTAX_TREE_DEPTH} operators in a chain are always accepted`;
}

function tooLargeMessage(length: number): string {
    return `the text is too large to analyse: ${length.toLocaleString('en-US')} characters, the limit is ${MAX_PARSED_LENGTH.toLocaleString('en-US')}`;
}

/** The members of chevrotain's parser used by the guards: internal to chevrotain, so not in its types. */
interface ChevrotainInternals {
    RULE_STACK_IDX: number;
    ruleInvocationStateUpdate(shortName: number, fullName: string, idxInCallingRule: number): void;
    ruleFinallyStateUpdate(): void;
    LA(k: number): IToken;
    input: IToken[];
}

/** Langium's parser state that an exception leaves behind (private in its types). */
interface LangiumParserInternals {
    wrapper: ChevrotainInternals;
    stack: unknown[];
    nodeBuilder: CstNodeBuilder;
    unorderedGroups: Map<string, boolean[]>;
    lexerResult: unknown;
}

/**
 * Bounds the rule depth of a chevrotain parser: entering a rule past `MAX_PARSER_RULE_DEPTH` throws
 * a ParseLimitError. chevrotain rethrows errors that are not recognition errors, so it ends the parse.
 * Patched on the instance (no extra stack frame per rule, which would lower the reachable depth).
 * `onLimit` records the problem: while the error unwinds, Langium's `finally` blocks may replace it
 * with one of their own.
 */
function guardRuleDepth(chevrotain: ChevrotainInternals, onLimit: (problem: ParseLimitProblem) => void, onExit?: (depth: number) => void): void {
    const enter = chevrotain.ruleInvocationStateUpdate;
    const exit = chevrotain.ruleFinallyStateUpdate;
    chevrotain.ruleInvocationStateUpdate = function (this: ChevrotainInternals, shortName, fullName, idx) {
        // Entered first, so that chevrotain's own bookkeeping (it leaves the rule in a `finally`) stays balanced.
        enter.call(this, shortName, fullName, idx);
        if (this.RULE_STACK_IDX >= MAX_PARSER_RULE_DEPTH) {
            const problem: ParseLimitProblem = { code: 'APL1002', message: nestingMessage(), offset: this.LA(1).startOffset };
            onLimit(problem);
            throw new ParseLimitError(problem);
        }
    };
    if (onExit) {
        chevrotain.ruleFinallyStateUpdate = function (this: ChevrotainInternals) {
            onExit(this.RULE_STACK_IDX);
            exit.call(this);
        };
    }
}

function isStackOverflow(e: unknown): boolean {
    return e instanceof RangeError && /call stack/i.test(e.message);
}

export class AplLangiumParser extends LangiumParser {
    /**
     * Left-nesting actions (`a + b + c`: each `+` wraps what came before) per open rule, and their
     * sum: the syntax tree grows deeper with each one although the parser only loops.
     */
    private readonly chainAt: number[] = [];
    private chained = 0;
    /** The limit this parse ran into (the thrown error itself may be replaced while unwinding). */
    private limitHit: ParseLimitProblem | undefined;

    constructor(services: LangiumCoreServices) {
        super(services);
        this.internals.nodeBuilder = new LinearCstNodeBuilder();
    }

    private get internals(): LangiumParserInternals {
        return this as unknown as LangiumParserInternals;
    }

    /** Called once the grammar is built (the chevrotain wrapper exists from the constructor on). */
    installGuards(): void {
        guardRuleDepth(this.internals.wrapper, problem => (this.limitHit = problem), depth => {
            const n = this.chainAt[depth];
            if (n) {
                this.chained -= n;
                this.chainAt[depth] = 0;
            }
        });
    }

    override action($type: string, action: GrammarAST.Action): void {
        if (!this.isRecording() && action.feature && action.operator) {
            const depth = this.internals.wrapper.RULE_STACK_IDX;
            this.chainAt[depth] = (this.chainAt[depth] ?? 0) + 1;
            if (++this.chained > MAX_SYNTAX_TREE_DEPTH) {
                this.limitHit = { code: 'APL1002', message: nestingMessage(), offset: this.internals.wrapper.LA(1).startOffset };
                throw new ParseLimitError(this.limitHit);
            }
        }
        super.action($type, action);
    }

    override parse<T extends AstNode = AstNode>(input: string, options?: { rule?: string }): ParseResult<T> {
        if (input.length > MAX_PARSED_LENGTH) return this.limitResult<T>(input, { code: 'APL1003', message: tooLargeMessage(input.length), offset: 0 });
        let result: ParseResult<T>;
        try {
            result = super.parse<T>(input, options);
        } catch (e) {
            const offset = this.internals.wrapper.LA(1)?.startOffset;
            const hit = this.limitHit;
            this.reset();
            if (hit) return this.limitResult<T>(input, hit);
            // A stack overflow that the guards did not foresee (a caller with a deep stack): the same answer.
            if (isStackOverflow(e)) return this.limitResult<T>(input, { code: 'APL1002', message: nestingMessage(), offset: offset ?? 0 });
            throw e;
        } finally {
            this.chainAt.length = 0;
            this.chained = 0;
            this.limitHit = undefined;
        }
        const deep = tooDeepNode(result.value);
        if (deep !== undefined) return this.limitResult<T>(input, { code: 'APL1002', message: nestingMessage(), offset: deep });
        return result;
    }

    /** Clears what an abandoned parse leaves behind; the next `parse` resets the rest. */
    private reset(): void {
        const p = this.internals;
        p.stack.length = 0;
        p.unorderedGroups.clear();
        p.lexerResult = undefined;
        p.wrapper.input = [];
    }

    /** An empty model with a root node over the whole text, and the one error. */
    private limitResult<T extends AstNode>(input: string, problem: ParseLimitProblem): ParseResult<T> {
        const root = new RootCstNodeImpl(input);
        const model = { $type: 'Model', statements: [], $cstNode: root } as unknown as T;
        (root as { astNode?: AstNode }).astNode = model;
        limitProblems.set(model, problem);
        const offset = Number.isFinite(problem.offset) ? Math.min(Math.max(0, problem.offset), input.length) : input.length;
        const token = tokenAt(input, offset);
        const error = Object.assign(new Error(problem.message), { name: 'ParseLimitError', token, resyncedTokens: [] as IToken[], context: { ruleStack: [], ruleOccurrenceStack: [] } });
        return { value: model, lexerErrors: [], lexerReport: { diagnostics: [] }, parserErrors: [error] } as unknown as ParseResult<T>;
    }
}

/** The offset of the first node deeper than MAX_SYNTAX_TREE_DEPTH, walking without recursion. */
function tooDeepNode(root: AstNode): number | undefined {
    const stack: [AstNode, number][] = [[root, 1]];
    while (stack.length > 0) {
        const [node, depth] = stack.pop()!;
        if (depth > MAX_SYNTAX_TREE_DEPTH) return node.$cstNode?.offset ?? 0;
        for (const key in node) {
            if (key.startsWith('$')) continue;
            const value = (node as unknown as Record<string, unknown>)[key];
            if (Array.isArray(value)) {
                for (const item of value) if (isNode(item)) stack.push([item, depth + 1]);
            } else if (isNode(value)) stack.push([value, depth + 1]);
        }
    }
    return undefined;
}

function isNode(v: unknown): v is AstNode {
    return typeof v === 'object' && v !== null && typeof (v as { $type?: unknown }).$type === 'string';
}

/** A one-character token at `offset`, for the error's position (line and column are 1-based). */
function tokenAt(text: string, offset: number): IToken {
    let line = 1;
    let lineStart = 0;
    for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
        line++;
        lineStart = i + 1;
    }
    const column = offset - lineStart + 1;
    const image = text.slice(offset, offset + 1);
    return {
        image,
        startOffset: offset,
        endOffset: offset + Math.max(0, image.length - 1),
        startLine: line,
        endLine: line,
        startColumn: column,
        endColumn: column + Math.max(0, image.length - 1),
        tokenTypeIdx: 0,
        tokenType: { name: 'ParseLimit' } as TokenType,
    };
}

/** The completion parser with the same depth guard: past it, completion simply offers nothing. */
export class AplCompletionParser extends LangiumCompletionParser {
    private limitHit: ParseLimitProblem | undefined;

    installGuards(): void {
        guardRuleDepth((this as unknown as LangiumParserInternals).wrapper, problem => (this.limitHit = problem));
    }

    override parse(input: string): CompletionParserResult {
        // The text before the cursor of a document too large to analyse: no completion, at once.
        if (input.length > MAX_PARSED_LENGTH) return { tokens: [], elementStack: [], tokenIndex: 0 };
        try {
            return super.parse(input);
        } catch (e) {
            (this as unknown as LangiumParserInternals).wrapper.input = [];
            if (this.limitHit || isStackOverflow(e)) return { tokens: [], elementStack: [], tokenIndex: 0 };
            throw e;
        } finally {
            this.limitHit = undefined;
        }
    }
}

/**
 * Langium's CST builder, except that a node is looked up in its container from the end: the node
 * being completed is nearly always the last child, and a pipeline of n operators has n children.
 */
export class LinearCstNodeBuilder extends CstNodeBuilder {
    override removeNode(node: CstNode): void {
        const parent = node.container;
        if (!parent) return;
        // `content` is readonly in the types; Langium's own removeNode splices it the same way.
        const content = parent.content as CstNode[];
        const index = content.lastIndexOf(node);
        if (index >= 0) content.splice(index, 1);
    }

    override addHiddenNodes(tokens: IToken[]): void {
        if (tokens.length === 0) return;
        const nodes = tokens.map(t => this.createLeafNode(t, true));
        let current: CompositeCstNode = this.current;
        if (current.content.length > 0) {
            this.appendChildren(current, nodes);
            return;
        }
        // A new, empty node: the hidden nodes go before it, in the first ancestor that has content.
        while (current.container) {
            const index = current.container.content.lastIndexOf(current);
            if (index > 0) {
                this.insertChildren(current.container, index, nodes);
                return;
            }
            current = current.container;
        }
        this.insertChildren((this as unknown as { rootNode: CompositeCstNode }).rootNode, 0, nodes);
    }
}
