/** render: KQL's chart stage, which APL lacks; the checker reports it (APL0017) and the evaluator refuses it. */
import { Issues } from '../../apl-issue-codes.js';
import { errorAt } from '../errors.js';
import type { OperatorImpls } from './common.js';

export const RENDER_OPERATORS = {
    RenderOperator: op => {
        throw errorAt(op, Issues.NoRender.message({}));
    },
} satisfies OperatorImpls<'RenderOperator'>;
