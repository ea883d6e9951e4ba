/**
 * The few parts of the `vscode` API the results panel and the Schema tree touch, for unit tests of
 * the panel's message handling and the tree's items. Only this edge is mocked: the panel's rows come from a real ResultSet.
 */
export const clipboardWrites: string[] = [];
export const statusMessages: string[] = [];
/** The `apl.*` settings a test sets (by key without the `apl.` prefix); unset ones read their default. */
export const settings = new Map<string, unknown>();

export const workspace = {
    getConfiguration: (_section: string) => ({ get: <T>(key: string, fallback?: T): T | undefined => (settings.has(key) ? (settings.get(key) as T) : fallback) }),
};

export class Uri {
    constructor(readonly fsPath: string) {}
    static file(p: string): Uri {
        return new Uri(p);
    }
    static joinPath(base: Uri, ...parts: string[]): Uri {
        return new Uri([base.fsPath, ...parts].join('/'));
    }
    toString(): string {
        return `file://${this.fsPath}`;
    }
}

export const env = {
    clipboard: {
        writeText: async (text: string) => {
            clipboardWrites.push(text);
        },
    },
};

export const window = {
    setStatusBarMessage: (text: string) => {
        statusMessages.push(text);
        return { dispose() {} };
    },
    createWebviewPanel: () => {
        throw new Error('not used in these tests');
    },
};

export const commands = { executeCommand: async () => undefined };
export const ViewColumn = { Beside: -2 };

/** For the Schema tree: a tree item is a plain record of what VS Code shows. */
export const TreeItemCollapsibleState = { None: 0, Collapsed: 1, Expanded: 2 } as const;

export class TreeItem {
    description?: string;
    tooltip?: string;
    iconPath?: unknown;
    contextValue?: string;
    command?: { command: string; title: string; arguments?: unknown[] };
    constructor(readonly label: string, readonly collapsibleState: number = TreeItemCollapsibleState.None) {}
}

export class ThemeIcon {
    constructor(readonly id: string) {}
}

export class EventEmitter<T> {
    private readonly listeners: ((e: T) => void)[] = [];
    readonly event = (listener: (e: T) => void) => {
        this.listeners.push(listener);
        return { dispose() {} };
    };
    fire(e: T): void {
        for (const l of this.listeners) l(e);
    }
}

/** A webview whose posted messages are collected and whose incoming messages the test sends. */
export class FakeWebview {
    html = '';
    options: unknown;
    readonly cspSource = 'vscode-resource:';
    readonly posted: unknown[] = [];
    private listener: ((m: unknown) => unknown) | undefined;
    asWebviewUri(uri: Uri): Uri {
        return uri;
    }
    async postMessage(m: unknown): Promise<boolean> {
        this.posted.push(m);
        return true;
    }
    onDidReceiveMessage(listener: (m: unknown) => unknown) {
        this.listener = listener;
        return { dispose() {} };
    }
    async receive(m: unknown): Promise<void> {
        await this.listener?.(m);
    }
}
