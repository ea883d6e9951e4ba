/**
 * The row details docked under the grid, in a split with a sash between them (as VS Code's own
 * panels, Kusto Explorer's row details and the ADX web UI's details pane): the grid keeps its whole
 * width, so no column and no row number is ever covered, and gives up only height, the row shown
 * being scrolled into view above the details.
 *
 * The sash is an ARIA window splitter (role="separator", focusable): drag it, or Up/Down (Page Up /
 * Page Down for bigger steps, Home / End for the smallest and largest) while it has the focus. The
 * height chosen is kept for the next details (and the webview's state).
 */

/** The details' and the grid's least heights (px): the grid keeps its header, a row (the one shown) and its scroll bar, the details their heading and a line. */
const MIN_DETAILS = 72;
const MIN_GRID = 72;
/** The details' heading (Row n, Copy JSON, Close): what they keep in the shortest panel. */
const MIN_HEADING = 30;
/** The details' share of the split before the user sets one. */
const DEFAULT_SHARE = 0.5;

/**
 * The grid and, under it, the sash and the details; `chosenHeight` is the details' height the user set
 * before (the webview's state), `onResize` is told each new one.
 */
export function detailsSplit(grid: HTMLElement, details: HTMLElement, options: { chosenHeight?: number; onResize: (height: number) => void }): HTMLElement {
    const element = document.createElement('div');
    element.className = 'grid-column';
    const sash = document.createElement('div');
    sash.className = 'details-sash';
    sash.tabIndex = 0;
    sash.setAttribute('role', 'separator');
    sash.setAttribute('aria-orientation', 'horizontal');
    sash.setAttribute('aria-label', 'Resize the row details');
    sash.title = 'Drag, or Up/Down with the focus here, to give the grid or the row details more height';
    if (!details.id) details.id = 'apl-row-details';
    sash.setAttribute('aria-controls', details.id);
    // In the page's order after the details (Tab goes from the grid to the details first); drawn above them (styles.css).
    element.append(grid, details, sash);
    let chosen = options.chosenHeight;

    // What is on screen of the split (a panel shorter than the view's least heights cuts its bottom off).
    const room = () => Math.min(element.clientHeight, window.innerHeight - element.getBoundingClientRect().top - 4) - (sash.offsetHeight || 4);
    /**
     * The grid keeps MIN_GRID, the details the rest up to what is asked and at least MIN_DETAILS; in a
     * panel too short for both, the grid's row wins and the details keep at least their heading.
     */
    const clamp = (h: number) => {
        const most = room() - MIN_GRID;
        const least = Math.max(MIN_HEADING, Math.min(MIN_DETAILS, most));
        return Math.round(Math.max(least, Math.min(h, most)));
    };
    function apply(): void {
        if (details.hidden) return;
        const total = room();
        if (total <= 0) return;
        const height = Math.max(0, clamp(chosen ?? total * DEFAULT_SHARE));
        details.style.height = `${height}px`;
        sash.setAttribute('aria-valuemin', '0');
        sash.setAttribute('aria-valuemax', '100');
        sash.setAttribute('aria-valuenow', String(Math.round((100 * height) / total)));
        sash.setAttribute('aria-valuetext', `row details ${height} pixels high`);
    }
    function set(height: number): void {
        chosen = clamp(height);
        apply();
        options.onResize(chosen);
    }

    sash.addEventListener('pointerdown', e => {
        if (e.button !== 0) return;
        e.preventDefault();
        sash.setPointerCapture(e.pointerId);
        sash.classList.add('active');
        const startY = e.clientY;
        const start = details.getBoundingClientRect().height;
        const move = (m: PointerEvent) => set(start + startY - m.clientY);
        const up = () => {
            sash.classList.remove('active');
            sash.removeEventListener('pointermove', move);
            sash.removeEventListener('pointerup', up);
            sash.removeEventListener('pointercancel', up);
        };
        sash.addEventListener('pointermove', move);
        sash.addEventListener('pointerup', up);
        sash.addEventListener('pointercancel', up);
    });
    sash.addEventListener('keydown', e => {
        const now = details.getBoundingClientRect().height;
        const step = { ArrowUp: 20, ArrowDown: -20, PageUp: 100, PageDown: -100 }[e.key];
        if (step !== undefined) set(now + step);
        else if (e.key === 'Home') set(MIN_DETAILS);
        else if (e.key === 'End') set(room() - MIN_GRID);
        else return;
        e.preventDefault();
    });
    // The panel's height changes (the user drags VS Code's panel): the details keep their height while there is room.
    new ResizeObserver(() => apply()).observe(element);
    new MutationObserver(() => apply()).observe(details, { attributes: true, attributeFilter: ['hidden'] });
    return element;
}
