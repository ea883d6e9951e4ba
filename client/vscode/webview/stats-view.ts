/**
 * The Stats tab (like ADX's): what the service said about the run, as a list of terms, and every
 * status message. Pure DOM from a `RunView`; the words are the users', not the API's field names.
 */
import type { RunView } from '../src/protocol.js';
import { fmt } from './status-text.js';

const ms = (n: number) => `${n.toLocaleString('en-US', { maximumFractionDigits: n < 10 ? 2 : 0 })} ms`;

/** [term, value] rows of the Stats tab. */
export function statsRows(run: RunView): [string, string][] {
    const s = run.stats;
    const rows: [string, string][] = [['Elapsed time', `${ms(run.elapsedMs)} in VS Code (the request, with every page read so far)`]];
    if (!s) return rows;
    if (s.serviceMs !== undefined) rows.push(['Service time', ms(s.serviceMs)]);
    rows.push(['Rows examined', fmt(s.rowsExamined)], ['Rows matched', fmt(s.rowsMatched)], ['Rows in the result', fmt(run.rowCount)], ['Rows read into VS Code', `${fmt(run.rowsLoaded)} in ${fmt(run.requests)} request${run.requests === 1 ? '' : 's'}`]);
    rows.push(['Blocks examined', fmt(s.blocksExamined)]);
    rows.push(['Blocks skipped by pruning', s.blocksSkipped !== undefined ? fmt(s.blocksSkipped) : 'none reported (nothing was pruned, or the service does not say)']);
    if (s.numGroups > 0) rows.push(['Groups', fmt(s.numGroups)]);
    if (s.minBlockTime || s.maxBlockTime) rows.push(['Time span of the blocks read', `${s.minBlockTime ?? '?'} to ${s.maxBlockTime ?? '?'}`]);
    rows.push(['Partial result', s.isPartial ? 'yes' : 'no'], ['Estimated counts', s.isEstimate ? 'yes' : 'no']);
    return rows;
}

export function renderStats(box: HTMLElement, run: RunView | undefined): void {
    box.replaceChildren();
    if (!run || run.state === 'running') {
        box.append(Object.assign(document.createElement('p'), { textContent: run ? 'The query is running…' : 'No query run yet.' }));
        return;
    }
    const list = document.createElement('dl');
    list.className = 'stats-list';
    for (const [term, value] of statsRows(run)) {
        const dt = document.createElement('dt');
        dt.textContent = term;
        const dd = document.createElement('dd');
        dd.textContent = value;
        list.append(dt, dd);
    }
    box.append(list);
    const messages = run.stats?.messages ?? [];
    const h = document.createElement('h3');
    h.textContent = messages.length === 0 ? 'No status messages' : `Status messages (${messages.length})`;
    box.append(h);
    if (messages.length === 0) return;
    const ul = document.createElement('ul');
    ul.className = 'stats-messages';
    for (const m of messages) {
        const li = document.createElement('li');
        li.className = m.priority;
        li.textContent = `${m.priority}${m.code ? ` (${m.code})` : ''}${m.count > 1 ? ` ×${fmt(m.count)}` : ''}: ${m.msg}`;
        ul.append(li);
    }
    box.append(ul);
}
