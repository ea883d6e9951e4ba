/**
 * The grid's column filters: pick a column and how (its values with their counts, a range, or a text
 * test), add the filter; the active filters are listed, each with a Remove button. The host applies
 * them (src/results/column-filter.ts) over every row it can hold, or says it cannot: the view then
 * shows the query with the filters as `where`s, to run on the service. Every filter is shown as the
 * `where` it stands for either way.
 */
import type { TableField } from '../../api/types.js';
import type { DistinctValuesView, FilterResultView } from '../src/protocol.js';
import { filterPredicate, type ColumnFilter, type TextOp } from '../src/results/column-filter.js';
import { cellText, headerText } from './cell-format.js';
import { button, select, setEnabled, textField, type ValueControl } from './controls.js';
import { fmt } from './status-text.js';

export interface FilterBarHost {
    /** The filters changed (none: every row again). */
    onChange(filters: ColumnFilter[]): void;
    askDistinct(field: string): void;
    runQuery(text: string): void;
    /** Statistics of the column over the whole result, on the service. */
    columnStats(field: string): void;
    /** A grid action on the column (pin, hide, …) or on all of them. */
    columnAction(action: ColumnAction, field: string): void;
}

export type ColumnAction = 'pin' | 'hide' | 'showAll' | 'autoSize' | 'wrap' | 'group' | 'groupService';

const COLUMN_ACTIONS: readonly (readonly [ColumnAction, string, string])[] = [
    ['pin', 'Pin column', 'Pin this column to the left (again: unpin it); remembered for this query'],
    ['hide', 'Hide column', 'Hide this column; remembered for this query'],
    ['showAll', 'Show all columns', 'Show every column again'],
    ['autoSize', 'Auto-size columns', 'Fit every column to the rows on screen'],
    ['wrap', 'Wrap text', 'Wrap long values over three lines per row (again: one line)'],
    ['group', 'Group by column', 'Count the rows by the values of this column (in VS Code, over the rows it holds)'],
    ['groupService', 'Group on the service', 'Count the rows of the whole result by the values of this column on the service (a summarize count() by, shown with its answer)'],
];

export interface FilterBar {
    readonly element: HTMLElement;
    /** Shows or hides the editor (the active filters stay in view). */
    toggleEditor(open: boolean): void;
    readonly filters: readonly ColumnFilter[];
    /** A new result: its fields, no filter. */
    reset(fields: readonly TableField[]): void;
    showDistinct(v: DistinctValuesView): void;
    showResult(r: FilterResultView, rowCount: number): void;
    add(filter: ColumnFilter): void;
}

/** Contains first: Values reads the column's every row (up to the sort limit) to count them, only when asked. */
const HOW: readonly (readonly [string, string])[] = [
    ['contains', 'Contains'],
    ['values', 'Values'],
    ['range', 'Range'],
    ['has', 'Has'],
    ['startswith', 'Starts with'],
    ['matches regex', 'Regex'],
];

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
}

export function createFilterBar(host: FilterBarHost): FilterBar {
    const element = el('div', { class: 'filter-bar', role: 'group', 'aria-label': 'Column filters' });
    const editor = el('div', { class: 'filter-editor' });
    let columnSelect: ValueControl = select('Filter column', []);
    const howSelect = select('Filter by', HOW);
    const textInput = textField('Filter text', 'text, or a regular expression');
    const fromInput = textField('Range from', 'from (number or time)');
    const toInput = textField('Range to', 'to');
    const addButton = button('Add filter', 'Keep only the rows that pass this filter', () => addFromEditor());
    const statsButton = button('Column statistics', 'Null count, distinct count, min/max and top values (or a histogram) of this column over the whole result, computed on the service', () => {
        if (columnSelect.value) host.columnStats(columnSelect.value);
    });
    const valuesBox = el('div', { class: 'filter-values', role: 'group', 'aria-label': 'Values' });
    const active = el('ul', { class: 'filter-list', 'aria-label': 'Active filters' });
    const info = el('div', { class: 'filter-info', 'data-testid': 'apl-filter-info', 'aria-live': 'polite' });
    const tools = el('div', { class: 'column-tools', role: 'group', 'aria-label': 'Column tools' });
    for (const [action, label, title] of COLUMN_ACTIONS) {
        const b = button(label, title, () => columnSelect.value && host.columnAction(action, columnSelect.value));
        // Wrap text is a toggle: it says whether it is on.
        if (action === 'wrap') b.setAttribute('aria-pressed', 'false');
        b.dataset.action = action;
        tools.append(b);
    }
    editor.append(columnSelect, howSelect, textInput, fromInput, toInput, addButton, statsButton, tools);
    element.append(editor, valuesBox, active, info);
    editor.hidden = true;
    let editorOpen = false;
    let fields: readonly TableField[] = [];
    let filters: ColumnFilter[] = [];
    let distinct: DistinctValuesView | undefined;

    const fieldOf = (name: string) => fields.find(f => f.name === name);

    function showInputs(): void {
        const how = howSelect.value;
        textInput.hidden = how === 'values' || how === 'range';
        fromInput.hidden = toInput.hidden = how !== 'range';
        valuesBox.hidden = how !== 'values' || !editorOpen;
        if (how === 'values') {
            valuesBox.replaceChildren(el('span', {}, 'Counting the values…'));
            distinct = undefined;
            if (columnSelect.value) host.askDistinct(columnSelect.value);
        }
    }
    howSelect.addEventListener('change', showInputs);

    function rangeBound(text: string, type: string): number | string | undefined {
        const t = text.trim();
        if (t === '') return undefined;
        const n = Number(t);
        return type.split('|')[0] === 'datetime' || !Number.isFinite(n) ? t : n;
    }

    function addFromEditor(): void {
        const field = fieldOf(columnSelect.value);
        if (!field) return;
        const how = howSelect.value;
        if (how === 'values') {
            const checked = [...valuesBox.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')].filter(c => c.checked).map(c => distinct?.values[Number(c.dataset.index)]?.value);
            if (checked.length === 0) return;
            add({ field: field.name, kind: 'values', values: checked });
        } else if (how === 'range') {
            const from = rangeBound(fromInput.value, field.type);
            const to = rangeBound(toInput.value, field.type);
            if (from === undefined && to === undefined) return;
            add({ field: field.name, kind: 'range', ...(from !== undefined ? { from } : {}), ...(to !== undefined ? { to } : {}) });
        } else {
            if (textInput.value === '') return;
            add({ field: field.name, kind: 'text', op: how as TextOp, text: textInput.value });
        }
    }

    function add(filter: ColumnFilter): void {
        filters = [...filters, filter];
        renderActive();
        host.onChange(filters);
    }

    function renderActive(): void {
        active.replaceChildren();
        filters.forEach((f, i) => {
            const li = el('li');
            li.append(el('code', {}, `where ${filterPredicate(f, fieldOf(f.field)?.type ?? 'string')}`), button(`Remove filter ${i + 1}`, `Remove the filter on ${headerText(f.field)}`, () => {
                filters = filters.filter((_, k) => k !== i);
                renderActive();
                host.onChange(filters);
            }));
            active.append(li);
        });
        active.hidden = filters.length === 0;
        if (filters.length === 0) info.replaceChildren();
    }

    return {
        element,
        toggleEditor(open) {
            editorOpen = open;
            editor.hidden = !open;
            showInputs();
        },
        get filters() {
            return filters;
        },
        reset(next) {
            // The same columns and nothing chosen: the controls stay (a re-run of a query rebuilds nothing).
            if (filters.length === 0 && distinct === undefined && sameFields(fields, next)) return;
            fields = next;
            filters = [];
            distinct = undefined;
            const fresh = select('Filter column', next.map(f => [f.name, headerText(f.name)] as const));
            columnSelect.replaceWith(fresh);
            columnSelect = fresh;
            columnSelect.addEventListener('change', () => showInputs());
            setEnabled(addButton, next.length > 0);
            setEnabled(statsButton, next.length > 0);
            renderActive();
            showInputs();
        },
        showDistinct(v) {
            if (v.field !== columnSelect.value) return;
            distinct = v;
            const type = fieldOf(v.field)?.type ?? 'string';
            valuesBox.replaceChildren();
            v.values.forEach((d, i) => {
                const label = el('label');
                const box = el('input', { type: 'checkbox' });
                box.dataset.index = String(i);
                label.append(box, ` ${d.value === null ? '(null)' : cellText(d.value, type, 'utc')} (${fmt(d.count)})`);
                valuesBox.append(label);
            });
            const over = v.distinct > v.values.length ? ` (the ${fmt(v.values.length)} most frequent of ${fmt(v.distinct)})` : '';
            valuesBox.append(el('span', { class: 'filter-scope' }, `${v.complete ? 'over every row' : `over the ${fmt(v.rowsCounted)} rows in memory`}${over}`));
        },
        showResult(r, rowCount) {
            info.replaceChildren();
            info.dataset.local = String(r.local);
            if (filters.length === 0) return;
            if (r.local) {
                info.append(el('span', {}, `Filtered in VS Code: ${fmt(r.rowCount)} of ${fmt(rowCount)} rows. The same on the service:`));
            } else {
                info.append(el('span', {}, `Not filtered here: ${r.reason ?? 'VS Code cannot apply it'}. On the service:`));
            }
            info.append(el('pre', { class: 'query' }, r.serviceQuery), button('Run filtered query', 'Run the query with these filters as a new query (it opens in an editor)', () => host.runQuery(r.serviceQuery)));
        },
        add,
    };
}

function sameFields(a: readonly TableField[], b: readonly TableField[]): boolean {
    return a.length === b.length && a.every((f, i) => f.name === b[i]!.name && f.type === b[i]!.type);
}
