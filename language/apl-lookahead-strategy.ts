import { LLkLookaheadStrategy, type ILookaheadStrategy } from 'chevrotain';

type AlternationOptions = Parameters<ILookaheadStrategy['buildLookaheadForAlternation']>[0];
type OptionalOptions = Parameters<ILookaheadStrategy['buildLookaheadForOptional']>[0];
type AlternationLookahead = ReturnType<ILookaheadStrategy['buildLookaheadForAlternation']>;
type OptionalLookahead = ReturnType<ILookaheadStrategy['buildLookaheadForOptional']>;

/**
 * LL(3) lookahead, with each decision's lookahead function built the first time the parser meets
 * the decision rather than when the parser is created.
 *
 * Why LL(3) and not Langium's default ALL(*): the grammar is LL(3) (langium-cli checks it), and with
 * fixed lookahead a failed prediction stays inside the alternative that matched furthest, so syntax
 * errors read "expected an expression after '=='" instead of ALL(*)'s "unexpected '=='".
 * Why lazily: computing the lookahead of every decision up front costs a large share of parser
 * start-up, which every `apl check` run and language-server start would pay, while one query meets
 * only a fraction of the decisions.
 */
export class LazyLLkLookaheadStrategy extends LLkLookaheadStrategy {
    override buildLookaheadForAlternation(options: AlternationOptions): AlternationLookahead {
        let built: AlternationLookahead | undefined;
        const build = () => super.buildLookaheadForAlternation(options);
        return function (this: unknown, ...args: Parameters<AlternationLookahead>) {
            built ??= build();
            return built.apply(this, args);
        } as AlternationLookahead;
    }

    override buildLookaheadForOptional(options: OptionalOptions): OptionalLookahead {
        let built: OptionalLookahead | undefined;
        const build = () => super.buildLookaheadForOptional(options);
        return function (this: unknown, ...args: Parameters<OptionalLookahead>) {
            built ??= build();
            return built.apply(this, args);
        } as OptionalLookahead;
    }
}
