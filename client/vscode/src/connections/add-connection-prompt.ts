/**
 * "APL: Add Connection" as a multi-step input: name, URL, token, organisation id. Each answer is
 * checked as it is typed (the URL the way `apl --url` reads it: `127.0.0.1:8686` is
 * `http://127.0.0.1:8686`); Back goes to the previous step with its answer kept. The connection is
 * tried when the last step is accepted; if the service refuses it, the step at fault comes back with
 * every answer kept (the token is never typed twice) and the reason under the box.
 */
import * as vscode from 'vscode';
import { AplApiError } from '../../../api/errors.js';
import { normalizeServiceUrl } from '../../../api/service-url.js';
import { ENVIRONMENT_CONNECTION, LOCAL_CONNECTION } from './connection-manager.js';

export interface ConnectionAnswers {
    name: string;
    url: string;
    token: string;
    orgId: string;
}

export const ADD_STEPS = ['name', 'url', 'token', 'orgId'] as const;
export type AddStep = (typeof ADD_STEPS)[number];

export interface StepMessage {
    message: string;
    /** An error blocks the step; info only explains (e.g. the URL a bare host:port becomes). */
    severity: 'error' | 'info';
}

/** What is wrong with (or worth saying about) an answer while it is typed; undefined when all is well. */
export function checkAnswer(step: AddStep, value: string, existing: readonly string[]): StepMessage | undefined {
    const v = value.trim();
    switch (step) {
        case 'name':
            if (v === '') return { message: 'Give the connection a name.', severity: 'error' };
            if (v === ENVIRONMENT_CONNECTION || v === LOCAL_CONNECTION) return { message: `'${v}' is reserved; pick another name.`, severity: 'error' };
            if (existing.includes(v)) return { message: `A connection named '${v}' exists: it will be replaced.`, severity: 'info' };
            return undefined;
        case 'url': {
            const url = normalizeServiceUrl(v);
            if (!url.ok) return { message: `${url.problem[0].toUpperCase()}${url.problem.slice(1)}.`, severity: 'error' };
            return url.url !== v ? { message: `Connects to ${url.url}`, severity: 'info' } : undefined;
        }
        case 'token':
            return v === '' ? { message: 'Paste an API token (xaat-…) or a personal token (xapt-…).', severity: 'error' } : undefined;
        case 'orgId':
            return undefined;
    }
}

/** The step a failed check of the connection sends the user back to, and what to tell them. */
export function failedStep(e: unknown, answers: ConnectionAnswers): { step: AddStep; message: string } {
    const text = e instanceof Error ? e.message : String(e);
    if (e instanceof AplApiError) {
        if (e.status === 0) return { step: 'url', message: `Cannot reach the service: ${text}` };
        if (e.status === 401) return { step: 'token', message: `The service refused the token: ${text}` };
        if (e.status === 403) {
            // A personal token needs the organisation; an API token lacks a permission.
            if (answers.token.trim().startsWith('xapt-') && answers.orgId.trim() === '') return { step: 'orgId', message: 'A personal token needs the organisation id.' };
            return { step: 'token', message: `The service refused the token: ${text}` };
        }
        if (e.status === 404) return { step: 'url', message: `This URL answers, but not as an Axiom API (${e.status}): check the address.` };
        return { step: 'url', message: `The service answered ${e.status}: ${text}` };
    }
    if (/token/i.test(text)) return { step: 'token', message: text };
    if (/url|http/i.test(text)) return { step: 'url', message: text };
    return { step: 'name', message: text };
}

const PROMPTS: Record<AddStep, { prompt: string; placeholder: string; password?: boolean }> = {
    name: { prompt: 'A name for the connection', placeholder: 'production' },
    url: { prompt: 'The address of Axiom (https://api.axiom.co, or your edge URL) or of a local apl serve (127.0.0.1:8686)', placeholder: 'https://api.axiom.co' },
    token: { prompt: 'An API token (xaat-…) or a personal token (xapt-…). It is kept in the secret storage, never in settings.', placeholder: 'xaat-…', password: true },
    orgId: { prompt: 'Organisation id: needed with a personal token, leave empty otherwise', placeholder: 'my-org-1a2b' },
};

/**
 * Asks for a connection and saves it with `save` (which checks it with the service). Resolves
 * with the saved connection's name, or undefined when the user gives up (Escape).
 */
export function promptConnection(existing: readonly string[], save: (answers: ConnectionAnswers) => Promise<string>): Promise<string | undefined> {
    const answers: ConnectionAnswers = { name: '', url: 'https://api.axiom.co', token: '', orgId: '' };
    const input = vscode.window.createInputBox();
    input.ignoreFocusOut = true;
    input.totalSteps = ADD_STEPS.length;
    let index = 0;
    let saving = false;

    const toValidation = (m: StepMessage | undefined): string | vscode.InputBoxValidationMessage | undefined =>
        m ? { message: m.message, severity: m.severity === 'error' ? vscode.InputBoxValidationSeverity.Error : vscode.InputBoxValidationSeverity.Info } : undefined;

    const show = (step: number, message?: string) => {
        index = step;
        const name = ADD_STEPS[step];
        const p = PROMPTS[name];
        input.title = 'APL: Add Connection';
        input.step = step + 1;
        input.prompt = p.prompt;
        input.placeholder = p.placeholder;
        input.password = p.password === true;
        input.value = answers[name];
        input.buttons = step > 0 ? [vscode.QuickInputButtons.Back] : [];
        input.validationMessage = message !== undefined ? { message, severity: vscode.InputBoxValidationSeverity.Error } : toValidation(checkAnswer(name, input.value, existing));
        input.busy = false;
        input.enabled = true;
        input.show();
    };

    return new Promise(resolve => {
        let done = false;
        const finish = (result: string | undefined) => {
            if (done) return;
            done = true;
            input.dispose();
            resolve(result);
        };
        input.onDidChangeValue(value => {
            if (!saving) input.validationMessage = toValidation(checkAnswer(ADD_STEPS[index], value, existing));
        });
        input.onDidTriggerButton(button => {
            if (button === vscode.QuickInputButtons.Back && index > 0 && !saving) {
                answers[ADD_STEPS[index]] = input.value;
                show(index - 1);
            }
        });
        input.onDidAccept(async () => {
            if (saving) return;
            const step = ADD_STEPS[index];
            if (checkAnswer(step, input.value, existing)?.severity === 'error') return;
            answers[step] = input.value.trim();
            if (index < ADD_STEPS.length - 1) return show(index + 1);
            saving = true;
            input.busy = true;
            input.enabled = false;
            input.validationMessage = { message: 'Checking the connection…', severity: vscode.InputBoxValidationSeverity.Info };
            try {
                const name = await save({ ...answers });
                saving = false;
                finish(name);
            } catch (e) {
                saving = false;
                const failed = failedStep(e, answers);
                show(ADD_STEPS.indexOf(failed.step), failed.message);
            }
        });
        input.onDidHide(() => {
            if (!saving) finish(undefined);
        });
        show(0);
    });
}
