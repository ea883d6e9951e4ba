/**
 * The chart choice (type, X, Y, series) remembered per query block, keyed by the block's text, in
 * the workspace's state (a Memento): the same query shows the same chart the next time it runs,
 * also after a restart. The newest `max` choices are kept. A stored value that is not a choice
 * (an older version, a hand edit) is ignored.
 */
import { CHART_TYPES, isChartType, type ChartChoice } from './chart-spec.js';

export interface ChoiceMemento {
    get<T>(key: string): T | undefined;
    update(key: string, value: unknown): Thenable<void> | Promise<void>;
}

const KEY = 'apl.chartChoices';
export const MAX_REMEMBERED_CHOICES = 200;

/** The key of a query: its text without the blank space around it and at line ends. */
export const queryKey = (text: string) => text.replace(/[ \t]+$/gm, '').trim();

function isChoice(v: unknown): v is ChartChoice {
    if (!v || typeof v !== 'object') return false;
    const c = v as Record<string, unknown>;
    return isChartType(c.type) && typeof c.x === 'string' && Array.isArray(c.y) && c.y.every(y => typeof y === 'string') && (c.series === undefined || typeof c.series === 'string');
}

export class ChartChoices {
    constructor(
        private readonly memento: ChoiceMemento,
        private readonly max = MAX_REMEMBERED_CHOICES,
    ) {}

    private all(): [string, ChartChoice][] {
        const stored = this.memento.get<unknown>(KEY);
        return Array.isArray(stored) ? stored.filter((e): e is [string, ChartChoice] => Array.isArray(e) && typeof e[0] === 'string' && isChoice(e[1])) : [];
    }

    get(query: string): ChartChoice | undefined {
        const key = queryKey(query);
        return this.all().find(([k]) => k === key)?.[1];
    }

    async set(query: string, choice: ChartChoice): Promise<void> {
        if (!isChoice(choice)) throw new TypeError(`not a chart choice: ${JSON.stringify(choice)} (type must be one of ${CHART_TYPES.join(', ')})`);
        const key = queryKey(query);
        const clean: ChartChoice = { type: choice.type, x: choice.x, y: [...choice.y], ...(choice.series !== undefined ? { series: choice.series } : {}) };
        const rest = this.all().filter(([k]) => k !== key);
        await this.memento.update(KEY, [...rest, [key, clean]].slice(-this.max));
    }
}
