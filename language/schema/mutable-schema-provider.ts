import type { DatasetSchema, SchemaProvider } from './schema-provider.js';
import { withTimeFields } from './static-schema-provider.js';

export interface Disposable {
    dispose(): void;
}

/**
 * A provider whose content can be replaced, e.g. by the language server when the configuration or
 * a client's `apl/setSchema` notification changes it. Every change bumps `version` and notifies
 * the listeners. It is as complete as the provider it was last given (a list of datasets: complete).
 */
export class MutableSchemaProvider implements SchemaProvider {
    private byName = new Map<string, DatasetSchema>();
    private currentVersion = 0;
    private isComplete = true;
    private readonly listeners = new Set<(provider: MutableSchemaProvider) => void>();

    constructor(initial: readonly DatasetSchema[] | SchemaProvider = []) {
        this.load(initial);
    }

    get version(): number {
        return this.currentVersion;
    }

    get complete(): boolean {
        return this.isComplete;
    }

    datasets(): DatasetSchema[] {
        return [...this.byName.values()];
    }

    dataset(name: string): DatasetSchema | undefined {
        return this.byName.get(name);
    }

    /** Replaces all datasets (with those of another provider, or a list). */
    replace(content: readonly DatasetSchema[] | SchemaProvider): void {
        this.byName.clear();
        this.load(content);
        this.changed();
    }

    /** Adds or replaces one dataset. */
    setDataset(schema: DatasetSchema): void {
        this.byName.set(schema.name, withTimeFields(schema));
        this.changed();
    }

    /** Removes one dataset; returns whether it existed. */
    removeDataset(name: string): boolean {
        const existed = this.byName.delete(name);
        if (existed) this.changed();
        return existed;
    }

    /** Calls `listener` after every change. */
    onDidChange(listener: (provider: MutableSchemaProvider) => void): Disposable {
        this.listeners.add(listener);
        return { dispose: () => this.listeners.delete(listener) };
    }

    private load(content: readonly DatasetSchema[] | SchemaProvider): void {
        const provider = Array.isArray(content) ? undefined : (content as SchemaProvider);
        this.isComplete = provider?.complete ?? true;
        for (const d of provider ? provider.datasets() : (content as readonly DatasetSchema[])) this.byName.set(d.name, withTimeFields(d));
    }

    private changed(): void {
        this.currentVersion++;
        for (const l of [...this.listeners]) l(this);
    }
}
