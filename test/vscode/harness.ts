/**
 * A real VS Code for the extension's tests and benchmarks (../shared/design/VSCODE-TESTING.md):
 * code-server from npm on Node 24, driven by Debian's Chromium through playwright-core, against a
 * real `apl serve` on a random loopback port. Everything runs in temporary directories; every
 * process is started in its own process group and stopped by its id.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { AplClient } from '../../client/api/client.js';
import type { HostTestResult } from './suite/names.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const EXTENSION_DIR = join(ROOT, 'client', 'vscode');
export const SCREENSHOTS = join(ROOT, 'out', 'vscode-test', 'screenshots');

export interface ToolPaths {
    node: string;
    codeServer: string;
    chromium: string;
}

export const SKIP = process.env.APL_SKIP_VSCODE_TESTS === '1';

/**
 * Runs scripts/provision-vscode-test.sh (idempotent; minutes from an empty cache, instant after).
 * Throws with the script's own explanation when the tools cannot be had here.
 */
export function provision(): ToolPaths {
    const r = spawnSync('bash', [join(ROOT, 'scripts', 'provision-vscode-test.sh')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], timeout: 20 * 60_000 });
    if (r.status !== 0) {
        const output = r.stderr.split('\n').filter(l => l.trim() !== '' && !l.startsWith('npm warn'));
        throw new Error(`the real-VS-Code tests cannot run: provisioning failed (exit ${r.status}).\n${output.slice(-20).join('\n')}\nSet APL_SKIP_VSCODE_TESTS=1 to skip them.`);
    }
    const file = r.stdout.trim().split('\n').pop()!;
    return JSON.parse(readFileSync(file, 'utf8')) as ToolPaths;
}

/** A loud line for the test log when the suites are skipped on purpose. */
export function skippedBanner(what: string): string {
    return `\n${'!'.repeat(100)}\n!!! SKIPPED: ${what} (APL_SKIP_VSCODE_TESTS=1)\n${'!'.repeat(100)}\n`;
}

function killGroup(child: ChildProcess | undefined): Promise<void> {
    if (!child?.pid || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise(resolve => {
        const timer = setTimeout(() => {
            try {
                process.kill(-child.pid!, 'SIGKILL');
            } catch {
                // already gone
            }
            resolve();
        }, 10_000);
        child.once('exit', () => {
            clearTimeout(timer);
            resolve();
        });
        try {
            process.kill(-child.pid!, 'SIGTERM');
        } catch {
            clearTimeout(timer);
            resolve();
        }
    });
}

function waitForLine(child: ChildProcess, pattern: RegExp, what: string, timeoutMs: number, log: string[]): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
        let buffer = '';
        const timer = setTimeout(() => reject(new Error(`${what} did not start within ${timeoutMs / 1000} s:\n${log.join('').slice(-2000)}`)), timeoutMs);
        const onData = (chunk: Buffer) => {
            const text = chunk.toString('utf8');
            log.push(text);
            buffer += text;
            const m = pattern.exec(buffer);
            if (m) {
                clearTimeout(timer);
                resolve(m);
            }
        };
        child.stdout?.on('data', onData);
        child.stderr?.on('data', onData);
        child.once('exit', code => {
            clearTimeout(timer);
            reject(new Error(`${what} exited with code ${code}:\n${log.join('').slice(-2000)}`));
        });
    });
}

// ------------------------------------------------------------------------------------ apl serve

export interface TestService {
    url: string;
    token: string;
    dir: string;
    stop(): Promise<void>;
}

/** The built `apl serve` (out/apl.cjs) on a random loopback port over a temporary data directory. */
export async function startAplServe(): Promise<TestService> {
    const dir = mkdtempSync(join(tmpdir(), 'apl-vscode-serve-'));
    const token = 'xaat-vscode-test-token-0123456789';
    const child = spawn(process.execPath, [join(ROOT, 'out', 'apl.cjs'), 'serve', '--port', '0', '--data', dir, '--no-samples'], {
        env: { ...process.env, AXIOM_TOKEN: token, APL_TOKEN: token },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
    });
    const log: string[] = [];
    const m = await waitForLine(child, /listening on (http:\/\/\S+)/, 'apl serve', 60_000, log);
    return {
        url: m[1],
        token,
        dir,
        stop: async () => {
            await killGroup(child);
            rmSync(dir, { recursive: true, force: true });
        },
    };
}

/** `events`: `count` events, one every 15 s up to a minute ago (inside the default 24 h range), each with a unique `seq`. */
export async function ingestEvents(service: TestService, count: number, dataset = 'events'): Promise<{ first: number; last: number }> {
    const client = new AplClient({ url: service.url, token: service.token });
    await client.datasets.create({ name: dataset });
    const last = Math.floor((Date.now() - 60_000) / 1000) * 1000;
    const batch = 50_000;
    for (let from = 0; from < count; from += batch) {
        const events = [];
        for (let i = from; i < Math.min(count, from + batch); i++) {
            events.push({ _time: new Date(last - (count - 1 - i) * 15_000).toISOString(), seq: i, level: i % 7 === 0 ? 'error' : 'info', 'geo.city': `city-${i % 5}`, duration_ms: (i % 100) * 1.5 });
        }
        await client.ingest(dataset, events);
    }
    return { first: last - (count - 1) * 15_000, last };
}

// ---------------------------------------------------------------------------------- code-server

export interface CodeServer {
    url: string;
    userDataDir: string;
    workspace: string;
    stop(): Promise<void>;
}

export interface CodeServerOptions {
    tools: ToolPaths;
    /** The folder opened in the workbench. */
    workspace: string;
    /** Install this .vsix before starting. */
    vsix?: string;
    /** `--vscode-option enable-smoke-test-driver`: the URL payload then runs extension tests. */
    smokeTestDriver?: boolean;
    env?: Record<string, string>;
}

export async function startCodeServer(options: CodeServerOptions): Promise<CodeServer> {
    const base = mkdtempSync(join(tmpdir(), 'apl-code-server-'));
    const userDataDir = join(base, 'user-data');
    const extensionsDir = join(base, 'extensions');
    mkdirSync(join(userDataDir, 'User'), { recursive: true });
    mkdirSync(extensionsDir, { recursive: true });
    writeFileSync(join(base, 'config.yaml'), 'auth: none\ncert: false\n');
    writeFileSync(
        join(userDataDir, 'User', 'settings.json'),
        JSON.stringify(
            {
                'workbench.startupEditor': 'none',
                'security.workspace.trust.enabled': false,
                'telemetry.telemetryLevel': 'off',
                'extensions.autoCheckUpdates': false,
                'extensions.autoUpdate': false,
                'update.mode': 'none',
                'workbench.tips.enabled': false,
                'workbench.enableExperiments': false,
                'chat.disableAIFeatures': true,
                'git.enabled': false,
                'workbench.colorTheme': 'Default Dark Modern',
                'editor.minimap.enabled': false,
                // No empty secondary side bar beside the editor (VS Code 1.100+ opens one for chat).
                'workbench.secondarySideBar.defaultVisibility': 'hidden',
            },
            null,
            1,
        ),
    );
    const env = { ...process.env, XDG_CONFIG_HOME: join(base, 'xdg'), XDG_DATA_HOME: join(base, 'xdg'), XDG_CACHE_HOME: join(base, 'xdg'), TZ: 'UTC', APL_TEST_USER_DATA: userDataDir, ...options.env };
    const common = [options.tools.codeServer, '--config', join(base, 'config.yaml'), '--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
    if (options.vsix) {
        const r = spawnSync(options.tools.node, [...common, '--install-extension', options.vsix], { env, encoding: 'utf8', timeout: 120_000 });
        if (r.status !== 0 || !/successfully installed/i.test(r.stdout + r.stderr)) throw new Error(`code-server --install-extension failed:\n${r.stdout}\n${r.stderr}`);
    }
    const args = [
        ...common,
        '--bind-addr', '127.0.0.1:0',
        '--auth', 'none',
        '--disable-telemetry',
        '--disable-update-check',
        '--disable-workspace-trust',
        '--disable-getting-started-override',
        '--ignore-last-opened',
        '--reconnection-grace-time', '5',
    ];
    if (options.smokeTestDriver) args.push('--vscode-option', 'enable-smoke-test-driver');
    const child = spawn(options.tools.node, args, { env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const log: string[] = [];
    const m = await waitForLine(child, /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)/, 'code-server', 60_000, log);
    return {
        url: m[1],
        userDataDir,
        workspace: options.workspace,
        stop: async () => {
            await killGroup(child);
            rmSync(base, { recursive: true, force: true });
        },
    };
}

// -------------------------------------------------------------------------------------- browser

export async function launchBrowser(tools: ToolPaths, options: { timezoneId?: string } = {}): Promise<{ context: BrowserContext; close(): Promise<void> }> {
    const profile = mkdtempSync(join(tmpdir(), 'apl-chromium-'));
    const context = await chromium.launchPersistentContext(profile, {
        executablePath: tools.chromium,
        headless: true,
        viewport: { width: 1500, height: 950 },
        timezoneId: options.timezoneId ?? 'UTC',
        args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--js-flags=--expose-gc'],
    });
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    return {
        context,
        close: async () => {
            await context.close();
            rmSync(profile, { recursive: true, force: true });
        },
    };
}

/** Opens the workbench on the folder and waits until the explorer shows `fileName` (the workbench is really ready then). */
export async function openWorkbench(page: Page, server: CodeServer, fileName: string, payload?: [string, string][]): Promise<void> {
    let url = `${server.url}/?folder=${encodeURIComponent(server.workspace)}`;
    if (payload) url += `&payload=${encodeURIComponent(JSON.stringify(payload))}`;
    await page.goto(url);
    await page.locator('.monaco-workbench').waitFor({ timeout: 60_000 });
    if (!payload) await page.locator('.explorer-folders-view .monaco-list-row', { hasText: fileName }).first().waitFor({ timeout: 60_000 });
}

/** Opens `fileName` of the workspace with Quick Open and waits until the editor shows `text`. */
export async function openFile(page: Page, fileName: string, text: string): Promise<void> {
    await page.keyboard.press('Control+P');
    await page.locator('.quick-input-widget .quick-input-box input').fill(fileName);
    await page.locator('.quick-input-widget .monaco-list-row', { hasText: fileName }).first().waitFor();
    await page.keyboard.press('Enter');
    await page.locator('.editor-instance .monaco-editor .view-lines', { hasText: text }).waitFor({ timeout: 60_000 });
}

/**
 * The step runner of a UI test file: runs a step and, when it fails, saves a screenshot named
 * `<prefix>-<step>.png` in SCREENSHOTS and says where (`always`: after a passing step too, for
 * looking at). `page` is read when the step runs (the page is made in beforeAll).
 */
export function uiSteps(page: () => Page, prefix: string, options: { always?: boolean } = {}): (name: string, fn: () => Promise<void>) => Promise<void> {
    return async (name, fn) => {
        const file = join(SCREENSHOTS, `${prefix}${name.replace(/[^a-z0-9]+/gi, '-').toLowerCase().slice(0, 80)}.png`);
        try {
            await fn();
            if (options.always) {
                mkdirSync(SCREENSHOTS, { recursive: true });
                await page().screenshot({ path: file });
            }
        } catch (e) {
            mkdirSync(SCREENSHOTS, { recursive: true });
            await page()
                .screenshot({ path: file })
                .catch(() => undefined);
            throw new Error(`${e instanceof Error ? e.message : String(e)}\n(screenshot: ${file})`, { cause: e });
        }
    };
}

/**
 * A picture for the README (APL_VSCODE_SCREENSHOTS=docs/images saves them; otherwise nothing): the
 * editor and a taller panel across the whole window, with no side bar and no sash highlight.
 */
export async function readmePicture(page: Page, name: string): Promise<void> {
    const dir = process.env.APL_VSCODE_SCREENSHOTS;
    if (!dir) return;
    const sideBar = page.locator('.part.sidebar');
    if (await sideBar.isVisible()) {
        // Keys go to the workbench from the editor (the webview keeps its own).
        await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
        await page.keyboard.press('Control+B');
    }
    await sideBar.waitFor({ state: 'hidden' });
    // The sash above the panel dragged up: more rows, and the editor keeps the query in view.
    const panel = (await page.locator('.part.panel').first().boundingBox())!;
    if (panel.y > 400) {
        await page.mouse.move(panel.x + panel.width / 2, panel.y - 1);
        await page.mouse.down();
        await page.mouse.move(panel.x + panel.width / 2, 400, { steps: 6 });
        await page.mouse.up();
    }
    await page.mouse.move(5, 5);
    await page.waitForTimeout(1000);
    await page.screenshot({ path: join(ROOT, dir, name) });
}

/** Runs the query block at `line` of the open editor as a user does: Go to Line, then Ctrl+Enter. */
export async function runLineInEditor(page: Page, line: number, options: { clickEditor?: boolean } = {}): Promise<void> {
    if (options.clickEditor !== false) await page.locator('.editor-instance .monaco-editor .view-lines').first().click();
    await page.keyboard.press('Control+G');
    await page.locator('.quick-input-widget .quick-input-box input').fill(`:${line}`);
    await page.keyboard.press('Enter');
    // Run once the editor has the focus back: a key pressed while the box closes can be lost (in a
    // window just reloaded, the results view then showed only the last result it recalls).
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden', timeout: 30_000 });
    await page.keyboard.press('Control+Enter');
}

// ----------------------------------------------------------------------------------- UI session

/**
 * Builds the .vsix the way a user installs it (scripts/package-vscode.mjs) into a file of this suite's
 * own (suites run side by side) and returns its path; the caller removes it.
 */
export function packageVsix(): string {
    const out = join(mkdtempSync(join(tmpdir(), 'apl-vsix-')), 'apl-tools.vsix');
    const pack = spawnSync(process.execPath, [join(ROOT, 'scripts', 'package-vscode.mjs'), '--out', out], { encoding: 'utf8', timeout: 120_000 });
    if (pack.status !== 0) throw new Error(`packaging the .vsix failed:\n${pack.stdout}\n${pack.stderr}`);
    return pack.stdout.trim().split('\n').pop()!;
}

/** Throws the one message every suite gives when a bundle it runs is not built. */
export function requireBundles(paths: string[]): void {
    const missing = paths.filter(p => !existsSync(join(ROOT, p)));
    if (missing.length > 0) throw new Error(`the bundles are missing (${missing.join(', ')}): run 'npm run bundle' first`);
}

export interface UiSessionOptions<P extends { url: string; close(): Promise<void> }> {
    /** The temporary workspace's name prefix. */
    name: string;
    /** Events ingested into the dataset `events` (see ingestEvents). */
    events: number;
    /** Workspace files by relative path. */
    files?: Record<string, string>;
    /** The workspace's .vscode/settings.json. */
    settings?: Record<string, unknown>;
    /** `env`: the connection comes from AXIOM_URL/AXIOM_TOKEN; `none`: the test adds it through the UI. */
    connection?: 'env' | 'none';
    /** A real proxy in front of the service that the extension talks to instead. */
    proxy?: (serviceUrl: string) => Promise<P>;
    timezoneId?: string;
    /** Bundles (paths from the project root) the suite runs, besides the CLI and the extension. */
    bundles?: string[];
}

export interface UiSession<P> {
    tools: ToolPaths;
    service: TestService;
    proxy: P | undefined;
    server: CodeServer;
    browser: Awaited<ReturnType<typeof launchBrowser>>;
    page: Page;
    workspace: string;
    /** Stops everything that started, in reverse order, and removes the workspace. */
    stop(): Promise<void>;
}

/**
 * The set-up of every UI suite: one `apl serve` with `events`, the packaged extension installed in one
 * code-server on a temporary workspace, and one Chromium page. A suite calls it once in beforeAll.
 */
export async function startUiSession<P extends { url: string; close(): Promise<void> } = never>(options: UiSessionOptions<P>): Promise<UiSession<P>> {
    const started: (() => Promise<void>)[] = [];
    const stop = async () => {
        for (const fn of started.reverse()) await fn().catch(() => undefined);
    };
    try {
        const tools = provision();
        requireBundles(['out/apl.cjs', 'client/vscode/dist/extension.cjs', ...(options.bundles ?? [])]);
        const service = await startAplServe();
        started.push(() => service.stop());
        await ingestEvents(service, options.events);
        const vsix = packageVsix();
        started.push(async () => rmSync(join(vsix, '..'), { recursive: true, force: true }));
        const workspace = mkdtempSync(join(tmpdir(), `apl-${options.name}-`));
        started.push(async () => rmSync(workspace, { recursive: true, force: true }));
        for (const [file, text] of Object.entries(options.files ?? {})) {
            mkdirSync(join(workspace, file, '..'), { recursive: true });
            writeFileSync(join(workspace, file), text);
        }
        if (options.settings) {
            mkdirSync(join(workspace, '.vscode'), { recursive: true });
            writeFileSync(join(workspace, '.vscode', 'settings.json'), JSON.stringify(options.settings));
        }
        const proxy = options.proxy ? await options.proxy(service.url) : undefined;
        if (proxy) started.push(() => proxy.close());
        const env = options.connection === 'none' ? undefined : { AXIOM_URL: proxy?.url ?? service.url, AXIOM_TOKEN: service.token };
        const server = await startCodeServer({ tools, workspace, vsix, env });
        started.push(() => server.stop());
        const browser = await launchBrowser(tools, { timezoneId: options.timezoneId });
        started.push(() => browser.close());
        const page = await browser.context.newPage();
        return { tools, service, proxy, server, browser, page, workspace, stop };
    } catch (e) {
        await stop();
        throw e;
    }
}

/**
 * The environment of the extension-host suite (test/vscode/suite/index.ts): the service, through
 * AXIOM_* (the extension's fallback connection) and APL_TEST_* (what the tests check against).
 */
export function suiteEnv(service: TestService, workspace: string, events: number, extra: Record<string, string> = {}): Record<string, string> {
    return {
        AXIOM_URL: service.url,
        AXIOM_TOKEN: service.token,
        APL_TEST_SERVICE_URL: service.url,
        APL_TEST_TOKEN: service.token,
        APL_TEST_WORKSPACE: workspace,
        APL_TEST_EVENTS: String(events),
        ...extra,
    };
}

/** The frame holding our results webview (two nested iframes: the host page, then `#active-frame`). */
export function resultsFrame(page: Page) {
    return page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
}

/**
 * Runs the extension-host suite (out/vscode-test/suite.cjs; APL_TEST_SUITE in `env` picks the set) in a
 * code-server of its own on `workspace`, and returns each test's result and the page's console.
 */
export async function runHostSuite(tools: ToolPaths, workspace: string, env: Record<string, string>, screenshot: string): Promise<{ results: HostTestResult[]; log: string }> {
    const resultsFile = join(workspace, '..', `${workspace.split('/').pop()}-results.json`);
    let server: CodeServer | undefined;
    let browser: Awaited<ReturnType<typeof launchBrowser>> | undefined;
    try {
        server = await startCodeServer({ tools, workspace, smokeTestDriver: true, env: { ...env, APL_TEST_RESULTS: resultsFile } });
        browser = await launchBrowser(tools);
        const page = await browser.context.newPage();
        const lines: string[] = [];
        page.on('console', m => lines.push(m.text()));
        let exitCode: (code: number) => void = () => undefined;
        const exited = new Promise<number>(resolve => (exitCode = resolve));
        await page.exposeFunction('codeAutomationExit', (code: number) => exitCode(code));
        const authority = new URL(server.url).host;
        await openWorkbench(page, server, '', [
            ['extensionDevelopmentPath', `vscode-remote://${authority}${EXTENSION_DIR}`],
            ['extensionTestsPath', `vscode-remote://${authority}${join(ROOT, 'out', 'vscode-test', 'suite.cjs')}`],
        ]);
        const code = await Promise.race([exited, new Promise<number>(resolve => setTimeout(() => resolve(-1), 8 * 60_000))]);
        const log = lines.filter(l => !/open-vsx|vsda|ENOTFOUND|authentication provider/i.test(l)).join('\n');
        const results = existsSync(resultsFile) ? (JSON.parse(readFileSync(resultsFile, 'utf8')) as HostTestResult[]) : [];
        if (code !== 0 && results.length === 0) {
            mkdirSync(SCREENSHOTS, { recursive: true });
            await page.screenshot({ path: join(SCREENSHOTS, screenshot) }).catch(() => undefined);
            throw new Error(`the extension-host suite ended with code ${code} and no results:\n${log.slice(-4000)}`);
        }
        return { results, log };
    } finally {
        rmSync(resultsFile, { force: true });
        await browser?.close();
        await server?.stop();
    }
}
