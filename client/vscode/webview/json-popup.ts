/**
 * A JSON cell expanded in place: a panel under the cell, inside the grid, listing every nested
 * value with its path (`['geo']['city']`), each to copy (value or path) or to filter the query by.
 * A non-modal dialog: it opens with the focus on its first button; Escape (or a click elsewhere, a
 * scroll, a new run) closes it, and Escape gives the focus back to the cell.
 */
import { jsonLeaves } from '../src/results/json-path.js';
import { detailText, fullText, headerText } from './cell-format.js';
import { button } from './controls.js';

export interface JsonPopupHost {
    copy(text: string): void;
    filter(field: string, keys: (string | number)[], value: unknown): void;
    /** Closed by Escape: the focus goes back to the cell. */
    escaped(rowIndex: number, field: string): void;
}

export class JsonPopup {
    private box: HTMLElement | undefined;

    constructor(
        /** The grid's box (positioned): the panel is placed in it, under the cell. */
        private readonly container: HTMLElement,
        private readonly host: JsonPopupHost,
    ) {
        document.addEventListener('mousedown', e => {
            if (this.box && !this.box.contains(e.target as Node)) this.close();
        });
    }

    get isOpen(): boolean {
        return this.box !== undefined;
    }

    show(cell: HTMLElement, field: string, rowIndex: number, value: unknown): void {
        this.close();
        const name = headerText(field);
        const box = document.createElement('section');
        box.className = 'json-popup';
        box.setAttribute('role', 'dialog');
        box.setAttribute('aria-label', `${name}, row ${rowIndex + 1}`);
        const head = document.createElement('div');
        head.className = 'details-head';
        const title = document.createElement('h2');
        title.textContent = `${name}, row ${rowIndex + 1}`;
        head.append(
            title,
            button('Copy JSON', `Copy the whole value of ${name} as JSON`, () => this.host.copy(fullText(value))),
            button('Close', 'Close (Escape)', () => this.close()),
        );
        const list = document.createElement('ul');
        for (const leaf of jsonLeaves(field, value)) {
            const li = document.createElement('li');
            li.dataset.depth = String(leaf.depth);
            // CSSOM, not a style attribute: the CSP allows it.
            li.style.paddingLeft = `${(leaf.depth - 1) * 14}px`;
            const path = document.createElement('code');
            path.className = 'json-path';
            path.textContent = detailText(leaf.path);
            li.append(path);
            const branch = leaf.value !== null && typeof leaf.value === 'object';
            if (!branch) {
                const v = document.createElement('code');
                v.textContent = detailText(leaf.value);
                li.append(v);
            }
            li.append(named(button('Copy value', `Copy the value at ${leaf.path}`, () => this.host.copy(fullText(leaf.value))), `Copy value at ${leaf.path}`));
            li.append(named(button('Copy path', `Copy the path ${leaf.path}`, () => this.host.copy(leaf.path)), `Copy path ${leaf.path}`));
            li.append(named(button('Filter', `Keep the rows where ${leaf.path} is this value (the query is run again)`, () => this.host.filter(field, leaf.keys, leaf.value)), `Filter by ${leaf.path}`));
            list.append(li);
        }
        box.append(head, list);
        box.addEventListener('keydown', e => {
            // The grid's keys (copy rows, open a cell) are not for the panel's buttons.
            e.stopPropagation();
            if (e.key === 'Escape') {
                e.preventDefault();
                this.close();
                this.host.escaped(rowIndex, field);
            }
        });
        // Under the cell, or over it when there is more room above.
        const area = this.container.getBoundingClientRect();
        const at = cell.getBoundingClientRect();
        const below = area.bottom - at.bottom;
        const above = at.top - area.top;
        box.style.left = `${Math.max(0, Math.min(at.left - area.left, area.width - 320))}px`;
        if (below >= 120 || below >= above) {
            box.style.top = `${at.bottom - area.top}px`;
            box.style.maxHeight = `${Math.max(60, below - 4)}px`;
        } else {
            box.style.bottom = `${area.bottom - at.top}px`;
            box.style.maxHeight = `${Math.max(60, above - 4)}px`;
        }
        this.container.append(box);
        this.box = box;
        box.querySelector<HTMLElement>('vscode-button')?.focus();
    }

    close(): void {
        this.box?.remove();
        this.box = undefined;
    }
}

/** A button's accessible name beyond its short label (which it keeps, first). */
function named<T extends HTMLElement>(b: T, label: string): T {
    b.setAttribute('aria-label', label);
    return b;
}
