import { parseArgs } from 'node:util';
import { formatGoDuration, parseRelativeDuration } from '../../../language/values.js';
import type { AplClient } from '../../api/client.js';
import { AplApiError } from '../../api/errors.js';
import type { Dataset, DatasetField, DatasetInfo } from '../../api/types.js';
import { CliError } from '../cli-error.js';
import { clientFrom, CONNECTION_OPTIONS, CONNECTION_USAGE, reportApiError, warnAboutTokenArgument } from '../connection.js';
import { renderTable, terminalWidth, type RenderTable } from '../render.js';
import { terminalText } from '../terminal-text.js';
import { closestName, helpPointer } from '../usage-error.js';

export const DATASETS_USAGE = `apl datasets list [--format table|json]
apl datasets create NAME [--description TEXT] [--format table|json]
apl datasets info NAME [--format table|json]
apl datasets schema [NAME...]
apl datasets trim NAME --max-duration D
apl datasets delete NAME
        [--url URL] [--token TOKEN] [--org-id ID]

Manages the datasets of a service (apl serve, or Axiom itself) through its HTTP API.
  list     the datasets: name, kind, description, creation time
  create   a new, empty dataset
  info     a dataset's events, blocks, bytes, time range and fields (--format json is a schema
           file too)
  schema   the fields of the datasets named (default: every dataset) as a schema file for
           'apl check --schema' and the editor (docs/schema-file.md): apl datasets schema > schema.json
  trim     deletes the events older than D (e.g. 30d, 12h, 90m) from a dataset
  delete   deletes a dataset and all its events
Exit code 0: done; 1: the service refused (e.g. no such dataset, a name already taken);
2: usage error, or the service could not be reached.
${CONNECTION_USAGE}
  --format         table (default) or json
  --description T  with create: a description of the dataset
  --max-duration D with trim: keep only the events of the last D`;

const SUBCOMMANDS = ['list', 'create', 'info', 'schema', 'trim', 'delete'] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

export async function runDatasetsCommand(argv: string[], out: NodeJS.WritableStream, err: NodeJS.WritableStream): Promise<number> {
    const { values, positionals } = parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
            ...CONNECTION_OPTIONS,
            format: { type: 'string' },
            description: { type: 'string' },
            'max-duration': { type: 'string' },
            help: { type: 'boolean', short: 'h' },
        },
    });
    if (values.help) {
        out.write(DATASETS_USAGE + '\n');
        return 0;
    }
    const [sub, ...names] = positionals;
    if (sub === undefined) throw new CliError(`missing subcommand: ${SUBCOMMANDS.join(', ')}\n${helpPointer('datasets')}`);
    if (!(SUBCOMMANDS as readonly string[]).includes(sub)) {
        const closest = closestName(sub, SUBCOMMANDS);
        const hint = closest ? ` (did you mean '${closest}'?)` : '';
        throw new CliError(`'${sub}' is not a subcommand of apl datasets${hint}; use ${SUBCOMMANDS.join(', ')}\n${helpPointer('datasets')}`);
    }
    const command = sub as Subcommand;
    const format = values.format ?? 'table';
    if (format !== 'table' && format !== 'json') throw new CliError(`--format must be table or json, not '${format}'`);
    if (command === 'list' && names.length > 0) throw new CliError(`unexpected argument '${names[0]}' (apl datasets list takes no name)`);
    if (command === 'schema' && values.format !== undefined) throw new CliError('apl datasets schema writes JSON: --format does not apply');
    if (command !== 'list' && command !== 'schema') {
        if (names.length === 0) throw new CliError(`missing the dataset name (apl datasets ${command} NAME)`);
        if (names.length > 1) throw new CliError(`unexpected argument '${names[1]}' (apl datasets ${command} takes one name)`);
    }
    if (values.description !== undefined && command !== 'create') throw new CliError('--description only applies to datasets create');
    if (values['max-duration'] !== undefined && command !== 'trim') throw new CliError('--max-duration only applies to datasets trim');
    let maxDuration: string | undefined;
    if (command === 'trim') {
        const raw = values['max-duration'];
        if (raw === undefined) throw new CliError('datasets trim needs --max-duration D (e.g. 30d, 12h)');
        const ns = parseRelativeDuration(raw);
        if (ns === undefined || ns < 0n) throw new CliError(`--max-duration must be a duration such as 30d, 12h or 90m, not '${raw}'`);
        maxDuration = formatGoDuration(ns);
    }
    warnAboutTokenArgument(values, err, 'datasets');
    const client = clientFrom(values);
    const name = names[0]!;
    const width = terminalWidth(out);
    try {
        switch (command) {
            case 'list': {
                const list = await client.datasets.list();
                list.sort((a, b) => a.name.localeCompare(b.name));
                if (format === 'json') out.write(JSON.stringify(list, null, 2) + '\n');
                else out.write(renderTable(datasetTable(list), { width }));
                return 0;
            }
            case 'create': {
                const created = await client.datasets.create({ name, description: values.description });
                if (format === 'json') out.write(JSON.stringify(created, null, 2) + '\n');
                else out.write(renderTable(datasetTable([created]), { width, footer: false }));
                return 0;
            }
            case 'info': {
                const [dataset, info] = await Promise.all([client.datasets.get(name), infoOrFields(client, name)]);
                if (format === 'json') out.write(JSON.stringify({ ...dataset, ...info }, null, 2) + '\n');
                else writeInfo(out, dataset, info, width);
                return 0;
            }
            case 'schema': {
                const wanted = names.length > 0 ? names : (await client.datasets.list()).map(d => d.name).sort((a, b) => a.localeCompare(b));
                const datasets: Record<string, DatasetField[]> = {};
                for (const n of wanted) {
                    try {
                        datasets[n] = await client.datasets.fields(n);
                    } catch (e) {
                        if (e instanceof AplApiError && e.status === 404) {
                            err.write(`apl datasets schema: no dataset '${terminalText(n)}' (see 'apl datasets list')\n`);
                            return 1;
                        }
                        throw e;
                    }
                }
                out.write(JSON.stringify({ datasets }, null, 2) + '\n');
                return 0;
            }
            case 'trim':
                await client.datasets.trim(name, maxDuration!);
                err.write(`trimmed dataset ${name} to the last ${maxDuration}\n`);
                return 0;
            case 'delete':
                await client.datasets.delete(name);
                err.write(`deleted dataset ${name}\n`);
                return 0;
        }
    } catch (e) {
        if (e instanceof AplApiError && e.status === 404 && command !== 'list') {
            err.write(`apl datasets ${command}: no dataset '${terminalText(name)}' (see 'apl datasets list')\n`);
            return 1;
        }
        return reportApiError(e, err, `datasets ${command}`);
    }
}

function datasetTable(list: readonly Dataset[]): RenderTable {
    return {
        fields: [{ name: 'name' }, { name: 'kind' }, { name: 'description' }, { name: 'created' }],
        columns: [list.map(d => d.name), list.map(d => d.kind ?? null), list.map(d => d.description || null), list.map(d => d.created)],
    };
}

/** `info` where the service has it; otherwise (a service without `/info`) the fields alone. */
async function infoOrFields(client: AplClient, name: string): Promise<Partial<DatasetInfo>> {
    try {
        return await client.datasets.info(name);
    } catch (e) {
        if (!(e instanceof AplApiError) || e.status !== 404) throw e;
        const fields = await client.datasets.fields(name);
        return { fields, numFields: fields.length };
    }
}

const EMPTY_TIME = /^0001-01-01/;

function writeInfo(out: NodeJS.WritableStream, dataset: Dataset, info: Partial<DatasetInfo>, width: number | undefined): void {
    const rows: [string, unknown][] = [
        ['name', dataset.name],
        ['kind', dataset.kind ?? null],
        ['description', dataset.description || null],
        ['created', dataset.created],
        ['events', info.numEvents ?? null],
        ['blocks', info.numBlocks ?? null],
        ['bytes', info.compressedBytes ?? null],
        ['first event', info.minTime && !EMPTY_TIME.test(info.minTime) ? info.minTime : null],
        ['last event', info.maxTime && !EMPTY_TIME.test(info.maxTime) ? info.maxTime : null],
        ['fields', info.numFields ?? info.fields?.length ?? null],
    ];
    out.write(renderTable({ fields: [{ name: 'property' }, { name: 'value', type: 'string' }], columns: [rows.map(r => r[0]), rows.map(r => r[1])] }, { width, footer: false }));
    const fields: readonly DatasetField[] = info.fields ?? [];
    if (fields.length > 0) {
        out.write('\n');
        out.write(renderTable({ fields: [{ name: 'field' }, { name: 'type' }], columns: [fields.map(f => f.name), fields.map(f => f.type)] }, { width }));
    }
}

