/**
 * The toolbar's controls in VS Code's own look: @vscode-elements/elements (Lit web components,
 * bundled; their styles go through constructable style sheets, so the strict CSP holds). Small
 * wrappers give each control a name for assistive technology and a `disabled` state that both the
 * element and `aria-disabled` carry.
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-checkbox/index.js';
import '@vscode-elements/elements/dist/vscode-option/index.js';
import '@vscode-elements/elements/dist/vscode-single-select/index.js';
import '@vscode-elements/elements/dist/vscode-textfield/index.js';

export interface Control extends HTMLElement {
    disabled: boolean;
}

export interface ValueControl extends Control {
    value: string;
}

export interface CheckControl extends Control {
    checked: boolean;
}

/** A button named by its label; `onClick` runs only while it is enabled. */
export function button(label: string, title: string, onClick: () => void, primary = false): Control {
    const b = document.createElement('vscode-button') as Control;
    b.textContent = label;
    b.title = title;
    if (!primary) b.setAttribute('secondary', '');
    b.addEventListener('click', () => {
        if (!b.disabled) onClick();
    });
    return b;
}

export function setEnabled(c: Control, enabled: boolean): void {
    if (c.disabled === !enabled) return;
    c.disabled = !enabled;
    c.setAttribute('aria-disabled', String(!enabled));
}

/** A drop-down of `options` ([value, label]). */
export function select(label: string, options: readonly (readonly [string, string])[], attrs: Record<string, string> = {}): ValueControl {
    const s = document.createElement('vscode-single-select') as ValueControl;
    s.setAttribute('label', label);
    s.setAttribute('aria-label', label);
    s.title = label;
    for (const [k, v] of Object.entries(attrs)) s.setAttribute(k, v);
    for (const [value, text] of options) {
        const o = document.createElement('vscode-option');
        o.setAttribute('value', value);
        o.textContent = text;
        s.append(o);
    }
    return s;
}

export function textField(label: string, placeholder: string): ValueControl {
    const t = document.createElement('vscode-textfield') as ValueControl & { label: string };
    t.setAttribute('aria-label', label);
    // The inner <input>'s accessible name: a property only (the element reads no `label` attribute).
    t.label = label;
    t.setAttribute('placeholder', placeholder);
    return t;
}

export function checkbox(label: string, checked: boolean): CheckControl {
    const c = document.createElement('vscode-checkbox') as CheckControl;
    c.setAttribute('label', label);
    c.checked = checked;
    return c;
}
