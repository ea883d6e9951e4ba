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
        /** Where the panel goes (it is placed in the window, by the cell). */
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
        // In the view's window, under the cell, or over it when the panel leaves more room there
        // (a panel of the default height has little under its first rows).
        this.container.append(box);
        const at = cell.getBoundingClientRect();
        const height = window.innerHeight;
        const below = height - at.bottom - 4;
        const above = at.top - 4;
        const needed = Math.min(box.scrollHeight, 240);
        box.style.left = `${Math.max(0, Math.min(at.left, window.innerWidth - box.offsetWidth - 4))}px`;
        if (below >= needed || below >= above) {
            box.style.top = `${at.bottom}px`;
            box.style.maxHeight = `${Math.max(60, below)}px`;
        } else {
            box.style.bottom = `${height - at.top}px`;
            box.style.maxHeight = `${Math.max(60, above)}px`;
        }
        this.box = box;
        // After the grid's own handling of the key that opened it (it keeps the focus on its cell).
        setTimeout(() => {
            if (this.box === box) box.querySelector<HTMLElement>('vscode-button')?.focus();
        });
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
