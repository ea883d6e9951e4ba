import { CstUtils, GrammarUtils, interruptAndCheck, isLeafCstNode, type AstNode, type LangiumDocument, type LeafCstNode } from 'langium';
import { AbstractSemanticTokenProvider, type SemanticTokenAcceptor } from 'langium/lsp';
import { SemanticTokenModifiers, SemanticTokenTypes } from 'vscode-languageserver';
import type { CancellationToken } from 'vscode-languageserver';
import type { AplServices } from '../apl-module.js';
import { lookupAggregate, lookupScalarFunction } from '../builtins/index.js';
import * as ast from '../generated/ast.js';
import { typedLiteralType, type AplTypeComputer } from '../types/apl-type-computer.js';
import { safely } from './apl-names.js';

/** Nodes between two checks for other work and cancellation (a power of two, less one). */
const YIELD_EVERY = 1023;

/**
 * Semantic tokens for APL, one per token of the document: functions (built-ins marked
 * `defaultLibrary`), fields (`property`), `let` names (`variable`), datasets (`namespace`), keywords,
 * operators, strings, numbers, comments and type names. Declarations carry the `declaration` modifier.
 */
export class AplSemanticTokenProvider extends AbstractSemanticTokenProvider {
    private readonly types: AplTypeComputer;

    constructor(services: AplServices) {
        super(services);
        this.types = services.types.TypeComputer;
    }

    protected override async computeHighlighting(document: LangiumDocument, acceptor: SemanticTokenAcceptor, cancelToken: CancellationToken): Promise<void> {
        const root = document.parseResult.value.$cstNode;
        if (!root) return;
        let visited = 0;
        for (const node of CstUtils.streamCst(root)) {
            // A big document: yield to other requests now and then, and stop when cancelled.
            if ((++visited & YIELD_EVERY) === 0) await interruptAndCheck(cancelToken);
            if (!isLeafCstNode(node) || node.length === 0) continue;
            const leaf = node;
            const kind = safely('semantic tokens', undefined, () => this.classify(leaf));
            if (kind) acceptor({ cst: node, type: kind.type, modifier: kind.modifier });
        }
    }

    protected highlightElement(_node: AstNode, _acceptor: SemanticTokenAcceptor): void {
        // All the work is done per token in computeHighlighting.
    }

    /** The token type (and modifiers) of one token; undefined for punctuation. */
    classify(leaf: LeafCstNode): { type: string; modifier?: string[] } | undefined {
        if (leaf.hidden) return { type: SemanticTokenTypes.comment };
        const tokenName = leaf.tokenType.name;
        switch (tokenName) {
            case 'STRING': case 'VERBATIM_STRING': return { type: SemanticTokenTypes.string };
            case 'LONG': case 'REAL': case 'TIMESPAN': case 'DATETIME': return { type: SemanticTokenTypes.number };
            case 'SEARCH_COLON': return { type: SemanticTokenTypes.operator };
            case 'WILDCARD': return { type: SemanticTokenTypes.property };
        }
        const node = leaf.astNode;
        const feature = GrammarUtils.findAssignment(leaf)?.feature;
        const name = this.nameKind(node, feature, leaf);
        if (name) return name;
        const text = leaf.text;
        if (/^[A-Za-z_$]/.test(text)) {
            if (tokenName === 'ID') return undefined;
            return { type: SemanticTokenTypes.keyword };
        }
        if (/^[(),;.[\]{}]+$/.test(text) || text === '..') return undefined;
        return { type: SemanticTokenTypes.operator };
    }

    private nameKind(node: AstNode, feature: string | undefined, leaf: LeafCstNode): { type: string; modifier?: string[] } | undefined {
        const declaration = [SemanticTokenModifiers.declaration];
        switch (node.$type) {
            case 'FunctionCall': {
                if (feature !== 'function') return undefined;
                const call = node as ast.FunctionCall;
                // A typed-literal cast (`long(null)`) reads as its type name.
                if (typedLiteralType(call)) return { type: SemanticTokenTypes.type };
                if (lookupScalarFunction(call.function) || lookupAggregate(call.function)) {
                    return { type: SemanticTokenTypes.function, modifier: [SemanticTokenModifiers.defaultLibrary] };
                }
                return { type: SemanticTokenTypes.function };
            }
            case 'NameReference': case 'BracketReference': {
                const ref = node as ast.NameReference;
                if (ref.name === '$left' || ref.name === '$right') return { type: SemanticTokenTypes.keyword };
                if (this.types.isTabularPosition(node) && this.types.schema.dataset(ref.name)) return { type: SemanticTokenTypes.namespace };
                if (ast.isNameReference(node) && !this.types.resolveField(node) && this.types.letBinding(ref.name, node)) {
                    return { type: SemanticTokenTypes.variable, modifier: [SemanticTokenModifiers.readonly] };
                }
                if (this.types.isTabularPosition(node)) return { type: SemanticTokenTypes.namespace };
                return { type: SemanticTokenTypes.property };
            }
            case 'LetStatement': case 'QueryParameter':
                if (feature === 'name') return { type: SemanticTokenTypes.variable, modifier: [...declaration, SemanticTokenModifiers.readonly] };
                if (feature === 'type') return { type: SemanticTokenTypes.type };
                return undefined;
            case 'NamedExpression': case 'MvExpandItem': case 'MakeSeriesAggregate': case 'ParseCapture': case 'TypedColumn':
                if (feature === 'name') return { type: SemanticTokenTypes.property, modifier: declaration };
                if (feature === 'type') return { type: SemanticTokenTypes.type };
                return undefined;
            case 'ColumnRename':
                return feature === 'newName' ? { type: SemanticTokenTypes.property, modifier: declaration } : undefined;
            case 'ColumnPath':
                return feature === 'segments' ? { type: SemanticTokenTypes.property } : undefined;
            case 'MemberAccess':
                return feature === 'member' || feature === 'bracketMember' ? { type: SemanticTokenTypes.property } : undefined;
            case 'IndexAccess':
                return feature === 'bracketIndex' ? { type: SemanticTokenTypes.property } : undefined;
            case 'TypeofLiteral':
                return feature === 'type' ? { type: SemanticTokenTypes.type } : { type: SemanticTokenTypes.keyword };
            case 'DynamicLiteral':
                return leaf.text === 'dynamic' ? { type: SemanticTokenTypes.type } : undefined;
            case 'OptionNameValue':
                return feature === 'name' ? { type: SemanticTokenTypes.enumMember } : undefined;
            case 'JsonMember':
                return feature === 'key' && leaf.tokenType.name !== 'STRING' ? { type: SemanticTokenTypes.property } : undefined;
            case 'Property':
                return feature === 'name' ? { type: SemanticTokenTypes.parameter } : undefined;
            case 'SetStatement':
                return feature === 'name' ? { type: SemanticTokenTypes.parameter } : undefined;
            case 'MvExpandOperator':
                return undefined;
        }
        return undefined;
    }
}
