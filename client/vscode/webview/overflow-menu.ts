/**
 * A toolbar that stays on one row however narrow its panel: the controls that do not fit go, least
 * needed first, into a "More actions" pop-up under a … button at the toolbar's end (VS Code's own
 * overflow). The controls are moved, not copied, so they keep their names, states and handlers;
 * the ones never listed (paging, Export, Cancel) stay on the toolbar. Only when even those do not
 * fit does the toolbar wrap, so no control is ever cut off.
 *
 * Keyboard: Enter or Space on the button opens the pop-up with the focus on its first control, Tab
 * moves through it, Escape closes it and gives the focus back to the button, as does leaving it.
 */
import { button, type Control } from './controls.js';

export interface OverflowToolbar {
    /** The … button (named More actions). */
    readonly more: Control;
    /** Fits the toolbar to its width again (after a control was shown, hidden or relabelled). */
    update(): void;
    close(focusButton?: boolean): void;
}

/**
 * `bar`'s controls in `overflowing` go into the pop-up in that order (the first goes first); each is
 * put back where it was when there is room again.
 */
export function overflowToolbar(bar: HTMLElement, overflowing: readonly HTMLElement[]): OverflowToolbar {
    const inBarOrder = [...overflowing].sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    // Where each control belongs: a marker left in its place, never moved.
    const homes = new Map(
        overflowing.map(item => {
            const marker = document.createComment('overflow');
            item.before(marker);
            return [item, marker] as const;
        }),
    );
    const menu = document.createElement('div');
    menu.className = 'more-menu';
    menu.id = 'apl-more-actions';
    menu.setAttribute('role', 'group');
    menu.setAttribute('aria-label', 'More actions');
    menu.hidden = true;
    const more = button('…', 'More actions: the toolbar controls the panel has no room for', () => (menu.hidden ? open() : close(true)));
    more.setAttribute('aria-label', 'More actions');
    more.setAttribute('aria-haspopup', 'true');
    more.setAttribute('aria-controls', menu.id);
    more.setAttribute('aria-expanded', 'false');
    more.classList.add('more-button');
    const wrapper = document.createElement('div');
    wrapper.className = 'more';
    wrapper.append(more, menu);
    bar.append(wrapper);

    const fits = () => bar.scrollWidth <= bar.clientWidth + 1;

    function update(): void {
        width = bar.clientWidth;
        bar.classList.remove('wrapped');
        for (const [item, marker] of homes) if (item.parentElement === menu) marker.after(item);
        wrapper.hidden = false;
        // Measured with the … button in place: it costs the toolbar its width only when something goes.
        wrapper.hidden = fits();
        if (wrapper.hidden) return close();
        for (const item of overflowing) {
            if (item.hidden) continue;
            menu.append(item);
            if (fits()) break;
        }
        // Put back in their toolbar order.
        for (const item of inBarOrder) if (item.parentElement === menu) menu.append(item);
        if (!fits()) bar.classList.add('wrapped');
        if (menu.childElementCount === 0) {
            wrapper.hidden = true;
            close();
        }
    }

    function open(): void {
        menu.hidden = false;
        more.setAttribute('aria-expanded', 'true');
        // Down to the panel's bottom edge, scrolling past it.
        menu.style.maxHeight = `${Math.max(80, window.innerHeight - menu.getBoundingClientRect().top - 4)}px`;
        const first = [...menu.querySelectorAll<HTMLElement>('vscode-button, vscode-single-select, vscode-checkbox, vscode-textfield')].find(c => !c.hidden && !(c as Control).disabled && c.offsetParent !== null);
        first?.focus();
    }

    function close(focusButton = false): void {
        if (menu.hidden) return;
        menu.hidden = true;
        more.setAttribute('aria-expanded', 'false');
        if (focusButton) more.focus();
    }

    // Before the controls see it (a drop-down keeps its Escape), unless it closes that drop-down's own list.
    menu.addEventListener(
        'keydown',
        e => {
            if (e.key !== 'Escape' || (e.target as { open?: boolean } | null)?.open === true) return;
            e.preventDefault();
            e.stopPropagation();
            close(true);
        },
        true,
    );
    wrapper.addEventListener('focusout', e => {
        const to = e.relatedTarget as Node | null;
        // A control's own pop-up (a drop-down's list) is inside it: still in the menu.
        if (to && !wrapper.contains(to)) close();
    });
    document.addEventListener('pointerdown', e => {
        if (!wrapper.contains(e.target as Node)) close();
    });

    // Fitted again when the panel's width changes, and when a control changes its own width.
    // While the pop-up is open only a new width counts (showing its controls resizes them: no refit then).
    let queued = false;
    let width = -1;
    const observer = new ResizeObserver(() => {
        if (queued || (!menu.hidden && bar.clientWidth === width)) return;
        queued = true;
        requestAnimationFrame(() => {
            queued = false;
            update();
        });
    });
    observer.observe(bar);
    for (const child of bar.children) if (child !== wrapper) observer.observe(child);
    return { more, update, close };
}
