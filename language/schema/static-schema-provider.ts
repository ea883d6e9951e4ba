import { typeFromAxiomFieldType, type AplType } from '../types/apl-types.js';
import { SYS_TIME_FIELD, TIME_FIELD, type DatasetSchema, type FieldSchema, type SchemaProvider, type SchemaProviderOptions } from './schema-provider.js';

/**
 * A fixed set of datasets, given up front (tests, a schema file read by the CLI, sample data).
 * `_time` and `_sysTime` are always present, as datetime, first.
 */
export class StaticSchemaProvider implements SchemaProvider {
    readonly version = 1;
    readonly complete: boolean;
    private readonly byName = new Map<string, DatasetSchema>();

    constructor(datasets: readonly DatasetSchema[], options: SchemaProviderOptions = {}) {
        this.complete = options.complete ?? true;
        for (const d of datasets) this.byName.set(d.name, withTimeFields(d));
    }

    /** Builds a provider from the text of a schema file (see docs/schema-file.md). */
    static fromJson(text: string, sourceName: string, options?: ParseSchemaOptions): StaticSchemaProvider {
        return new StaticSchemaProvider(parseSchemaJson(text, sourceName, options));
    }

    datasets(): DatasetSchema[] {
        return [...this.byName.values()];
    }

    dataset(name: string): DatasetSchema | undefined {
        return this.byName.get(name);
    }
}

/** A copy of `schema` with `_time` and `_sysTime` (datetime) first and no other field of those names. */
export function withTimeFields(schema: DatasetSchema): DatasetSchema {
    const timeField = (name: string): FieldSchema => {
        const given = schema.fields.find(f => f.name === name);
        return { ...given, name, type: 'datetime' };
    };
    return {
        name: schema.name,
        fields: [timeField(TIME_FIELD), timeField(SYS_TIME_FIELD), ...schema.fields.filter(f => f.name !== TIME_FIELD && f.name !== SYS_TIME_FIELD)],
    };
}

/** A schema file that cannot be used: names the source, the place in it (`path`) and the problem. */
export class SchemaFormatError extends Error {
    constructor(readonly sourceName: string, readonly path: string, readonly problem: string) {
        super(`${sourceName}: ${path ? `${path}: ` : ''}${problem}`);
        this.name = 'SchemaFormatError';
    }
}

export interface ParseSchemaOptions {
    /**
     * Dataset name for a file that is a bare field list (the response of
     * `GET /v2/datasets/{id}/fields`). Default: the file name of `sourceName` without `.json`
     * (and without a `.fields` suffix).
     */
    datasetName?: string;
}

/**
 * Parses a schema file. Accepted shapes (see docs/schema-file.md):
 *
 * 1. ours: `{"datasets": {"<dataset>": {"<field>": "<type>" | {"type", "description"?, "unit"?, "hidden"?}}}}`
 * 2. a list of datasets: `{"datasets": [{"name", "fields": [Field]}]}` or `[{"name", "fields": [Field]}]`
 * 3. Axiom's field metadata keyed by dataset (`fieldsMetaMap` of a query result): `{"<dataset>": [Field]}`
 * 4. Axiom's per-dataset fields response: `[Field]`, named by `options.datasetName` or the file name
 *
 * where Field is `{"name", "type", "unit"?, "hidden"?, "description"?}`. Types are Axiom field
 * types (`string`, `integer`, `float`, `boolean`, `datetime`, `timespan`, `map`, `array`, unions
 * such as `integer|float`) or APL type names (`long`, `real`, `bool`, `dynamic`). Hidden fields are
 * skipped. Throws SchemaFormatError naming the problem and where it is.
 */
export function parseSchemaJson(text: string, sourceName: string, options: ParseSchemaOptions = {}): DatasetSchema[] {
    let value: unknown;
    try {
        value = JSON.parse(text);
    } catch (e) {
        throw new SchemaFormatError(sourceName, '', `not valid JSON (${e instanceof Error ? e.message : String(e)})`);
    }
    return schemaFromJsonValue(value, sourceName, options);
}

/** Like parseSchemaJson, for a value that is already parsed. */
export function schemaFromJsonValue(value: unknown, sourceName: string, options: ParseSchemaOptions = {}): DatasetSchema[] {
    const fail = (path: string, problem: string): never => {
        throw new SchemaFormatError(sourceName, path, problem);
    };
    const result: DatasetSchema[] = [];
    const seen = new Set<string>();
    const addDataset = (name: unknown, path: string, fields: FieldSchema[]): void => {
        if (typeof name !== 'string' || name === '') fail(path, 'a dataset needs a non-empty string name');
        const dsName = name as string;
        if (seen.has(dsName)) fail(path, `dataset '${dsName}' is defined twice`);
        seen.add(dsName);
        result.push(withTimeFields({ name: dsName, fields }));
    };

    if (Array.isArray(value)) {
        if (value.length > 0 && isObject(value[0]) && 'fields' in value[0]) {
            value.forEach((d, i) => {
                const path = `[${i}]`;
                if (!isObject(d)) fail(path, 'expected a dataset object {"name", "fields"}');
                const ds = d as Record<string, unknown>;
                addDataset(ds.name, path, parseFieldList(ds.fields, `${path}.fields`, fail, true));
            });
        } else {
            const name = options.datasetName ?? datasetNameFromSource(sourceName);
            addDataset(name, '', parseFieldList(value, '', fail, true));
        }
        return result;
    }
    if (!isObject(value)) return fail('', 'expected a JSON object with a "datasets" key, or an array');
    const root = value as Record<string, unknown>;
    if ('datasets' in root) {
        const datasets = root.datasets;
        if (Array.isArray(datasets)) {
            datasets.forEach((d, i) => {
                const path = `datasets[${i}]`;
                if (!isObject(d)) fail(path, 'expected a dataset object {"name", "fields"}');
                const ds = d as Record<string, unknown>;
                addDataset(ds.name, path, parseFieldList(ds.fields, `${path}.fields`, fail, true));
            });
        } else if (isObject(datasets)) {
            for (const [name, spec] of Object.entries(datasets as Record<string, unknown>)) {
                const path = `datasets${pathKey(name)}`;
                if (Array.isArray(spec)) addDataset(name, path, parseFieldList(spec, path, fail, true));
                else if (isObject(spec)) addDataset(name, path, parseFieldMap(spec as Record<string, unknown>, path, fail));
                else fail(path, 'expected an object mapping field names to types, or a list of fields');
            }
        } else {
            fail('datasets', 'expected an object keyed by dataset name, or a list of datasets');
        }
        return result;
    }
    // One dataset with its fields, as `GET /v1/datasets/{id}/info` (and `apl datasets info --format json`) answers.
    if (typeof root.name === 'string' && Array.isArray(root.fields)) {
        addDataset(root.name, '', parseFieldList(root.fields, 'fields', fail, true));
        return result;
    }
    // Axiom's fieldsMetaMap shape: every value is a field list.
    const entries = Object.entries(root);
    if (entries.length > 0 && entries.every(([, v]) => Array.isArray(v))) {
        for (const [name, fields] of entries) addDataset(name, pathKey(name), parseFieldList(fields, pathKey(name), fail, true));
        return result;
    }
    return fail('', 'expected a "datasets" key (see docs/schema-file.md), or an object mapping dataset names to field lists');
}

type Fail = (path: string, problem: string) => never;

/** `{"status": "string", "req_duration_ms": {"type": "float", "unit": "ms"}}` */
function parseFieldMap(spec: Record<string, unknown>, path: string, fail: Fail): FieldSchema[] {
    const fields: FieldSchema[] = [];
    for (const [name, typeSpec] of Object.entries(spec)) {
        const fieldPath = `${path}${pathKey(name)}`;
        if (name === '') fail(fieldPath, 'a field name must not be empty');
        if (typeof typeSpec === 'string') {
            fields.push({ name, type: parseType(typeSpec, `${fieldPath}`, fail, false) });
        } else if (isObject(typeSpec)) {
            const f = parseFieldObject({ ...(typeSpec as Record<string, unknown>), name }, fieldPath, fail, false);
            if (f) fields.push(f);
        } else {
            fail(fieldPath, `expected a type name (e.g. "string", "integer") or an object {"type": ...}, got ${describe(typeSpec)}`);
        }
    }
    return fields;
}

/** `[{"name": "status", "type": "string"}, ...]`; `axiom` allows the empty type Axiom sometimes reports. */
function parseFieldList(list: unknown, path: string, fail: Fail, axiom: boolean): FieldSchema[] {
    if (!Array.isArray(list)) return fail(path, `expected a list of fields, got ${describe(list)}`);
    const fields: FieldSchema[] = [];
    const names = new Set<string>();
    list.forEach((item, i) => {
        const itemPath = `${path}[${i}]`;
        if (!isObject(item)) fail(itemPath, `expected a field object {"name", "type"}, got ${describe(item)}`);
        const f = parseFieldObject(item as Record<string, unknown>, itemPath, fail, axiom);
        if (!f) return;
        if (names.has(f.name)) fail(itemPath, `field '${f.name}' is listed twice`);
        names.add(f.name);
        fields.push(f);
    });
    return fields;
}

/** One field object; undefined when hidden. */
function parseFieldObject(o: Record<string, unknown>, path: string, fail: Fail, axiom: boolean): FieldSchema | undefined {
    if (typeof o.name !== 'string' || o.name === '') fail(path, 'a field needs a non-empty string "name"');
    const name = o.name as string;
    const at = path.endsWith(pathKey(name)) ? path : `${path} ('${name}')`;
    if (o.hidden !== undefined && typeof o.hidden !== 'boolean') fail(at, '"hidden" must be true or false');
    if (o.hidden === true) return undefined;
    if (typeof o.type !== 'string') fail(at, `a field needs a string "type", got ${describe(o.type)}`);
    const field: FieldSchema = { name, type: parseType(o.type as string, at, fail, axiom) };
    if (o.description !== undefined && o.description !== null) {
        if (typeof o.description !== 'string') fail(at, '"description" must be a string');
        if (o.description !== '') field.description = o.description as string;
    }
    if (o.unit !== undefined && o.unit !== null) {
        if (typeof o.unit !== 'string') fail(at, '"unit" must be a string');
        if (o.unit !== '') field.unit = o.unit as string;
    }
    return field;
}

const KNOWN_TYPES = 'string, integer, float, boolean, datetime, timespan, map, array (or unions like integer|float; APL names long, real, bool, dynamic also work)';

function parseType(text: string, path: string, fail: Fail, allowEmpty: boolean): AplType {
    const t = text.trim();
    if (t === '') {
        if (allowEmpty) return 'unknown';
        return fail(path, `empty field type; expected one of ${KNOWN_TYPES}`);
    }
    for (const part of t.split('|')) {
        if (typeFromAxiomFieldType(part.trim()) === 'unknown') {
            fail(path, `unknown field type '${part.trim()}'${t.includes('|') ? ` in '${t}'` : ''}; expected one of ${KNOWN_TYPES}`);
        }
    }
    return typeFromAxiomFieldType(t);
}

function datasetNameFromSource(sourceName: string): string {
    const base = sourceName.split(/[\\/]/).pop() ?? sourceName;
    return base.replace(/\.json$/i, '').replace(/\.fields$/i, '');
}

function isObject(v: unknown): v is Record<string, unknown> {
    return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** `.name` for plain names, `["odd-name"]` otherwise. */
function pathKey(name: string): string {
    return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
}

function describe(v: unknown): string {
    if (v === null) return 'null';
    if (Array.isArray(v)) return 'a list';
    if (typeof v === 'object') return 'an object';
    if (typeof v === 'string') return `the string ${JSON.stringify(v)}`;
    return `${typeof v} ${String(v)}`;
}
