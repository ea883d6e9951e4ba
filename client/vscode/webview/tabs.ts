/**
 * The views of a result as tabs (WAI-ARIA tabs pattern): a `tablist` of `tab`s, each controlling a
 * `tabpanel`. One tab is in the page's Tab order (roving tabindex); arrows, Home and End move
 * between tabs and select them. Panels are kept (hidden, not rebuilt) so a view keeps its state.
 */
export interface Tabs {
    readonly list: HTMLElement;
    /** Adds a tab named `label` showing `panel` (`before`: the id of the tab it goes in front of). */
    add(id: string, label: string, panel: HTMLElement, before?: string): void;
    remove(id: string): void;
    has(id: string): boolean;
    select(id: string, focus?: boolean): void;
    readonly selected: string;
}

export function createTabs(label: string, onSelect: (id: string) => void): Tabs {
    const list = document.createElement('div');
    list.setAttribute('role', 'tablist');
    list.setAttribute('aria-label', label);
    list.className = 'tabs';
    const tabs = new Map<string, { tab: HTMLButtonElement; panel: HTMLElement }>();
    let selected = '';

    const order = () => [...list.querySelectorAll<HTMLButtonElement>('[role="tab"]')];

    function select(id: string, focus = false): void {
        if (!tabs.has(id)) return;
        selected = id;
        for (const [key, { tab, panel }] of tabs) {
            const on = key === id;
            tab.setAttribute('aria-selected', String(on));
            tab.tabIndex = on ? 0 : -1;
            panel.hidden = !on;
        }
        if (focus) tabs.get(id)!.tab.focus();
        onSelect(id);
    }

    list.addEventListener('keydown', e => {
        const all = order();
        const at = all.indexOf(document.activeElement as HTMLButtonElement);
        if (at < 0) return;
        const to = e.key === 'ArrowRight' ? (at + 1) % all.length : e.key === 'ArrowLeft' ? (at - 1 + all.length) % all.length : e.key === 'Home' ? 0 : e.key === 'End' ? all.length - 1 : -1;
        if (to < 0) return;
        e.preventDefault();
        select(all[to].dataset.tab!, true);
    });

    return {
        list,
        add(id, text, panel, before) {
            const tab = document.createElement('button');
            tab.type = 'button';
            tab.setAttribute('role', 'tab');
            tab.id = `tab-${id}`;
            tab.dataset.tab = id;
            tab.textContent = text;
            tab.tabIndex = -1;
            tab.setAttribute('aria-selected', 'false');
            panel.setAttribute('role', 'tabpanel');
            panel.setAttribute('aria-labelledby', tab.id);
            if (!panel.id) panel.id = `panel-${id}`;
            tab.setAttribute('aria-controls', panel.id);
            panel.hidden = true;
            tab.addEventListener('click', () => select(id));
            const next = before ? tabs.get(before)?.tab : undefined;
            if (next) list.insertBefore(tab, next);
            else list.append(tab);
            tabs.set(id, { tab, panel });
            if (!selected) select(id);
        },
        remove(id) {
            const t = tabs.get(id);
            if (!t) return;
            t.tab.remove();
            t.panel.remove();
            tabs.delete(id);
            if (selected === id) {
                selected = '';
                const first = order()[0]?.dataset.tab;
                if (first) select(first);
            }
        },
        has: id => tabs.has(id),
        select,
        get selected() {
            return selected;
        },
    };
}
