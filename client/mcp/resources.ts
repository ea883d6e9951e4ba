/**
 * The resources and prompts of `apl mcp`: the catalogue of built-ins, the diagnostic codes with what
 * each means, each dataset's schema; and two prompts an agent (or its user) can start from.
 */
import { ResourceTemplate, type McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { Issues } from '../../language/apl-issue-codes.js';
import { checkText } from '../../language/check.js';
import { wholeCatalogue } from './catalogue.js';
import type { McpSettings } from './session.js';
import { redactValue } from './redact.js';
import { ToolProblem } from './data-source.js';

const JSON_TYPE = 'application/json';

/** The diagnostic codes and their explanations (the SARIF rules' help). */
export function diagnosticCodes(): { code: string; id: string; severity: string; help: string }[] {
    return Object.values(Issues).map(i => ({ code: i.code, id: i.id, severity: i.severity, help: i.help }));
}

async function datasetNames(settings: McpSettings): Promise<string[]> {
    return settings.schemaFile ? settings.schemaFile.provider.datasets().map(d => d.name) : (await settings.source.datasets()).map(d => d.name);
}

async function datasetFields(settings: McpSettings, dataset: string): Promise<{ name: string; type: string }[]> {
    if (settings.schemaFile) {
        const known = settings.schemaFile.provider.dataset(dataset);
        if (!known) throw new ToolProblem(`unknown dataset '${dataset}'`);
        return known.fields.map(f => ({ name: f.name, type: f.type }));
    }
    return (await settings.source.fields(dataset)).map(f => ({ name: f.name, type: f.type }));
}

export function registerAplResources(server: McpServer, settings: McpSettings): void {
    const json = (uri: URL, value: unknown) => ({ contents: [{ uri: uri.href, mimeType: JSON_TYPE, text: settings.redact(JSON.stringify(redactValue(value, settings.redact), null, 2)) }] });

    server.registerResource(
        'catalogue',
        'apl://catalogue',
        { title: 'APL functions and operators', description: 'Every tabular operator, scalar function, aggregation and scalar operator: signatures, description, example.', mimeType: JSON_TYPE },
        uri => json(uri, wholeCatalogue()),
    );
    server.registerResource(
        'diagnostics',
        'apl://diagnostics',
        { title: 'APL diagnostic codes', description: 'Each diagnostic code check_apl reports, its severity and what it means.', mimeType: JSON_TYPE },
        uri => json(uri, diagnosticCodes()),
    );
    server.registerResource(
        'dataset-schema',
        new ResourceTemplate('apl://datasets/{dataset}/schema', {
            list: async () => ({
                resources: (await datasetNames(settings)).map(name => ({ uri: `apl://datasets/${encodeURIComponent(name)}/schema`, name: `${name} schema`, mimeType: JSON_TYPE })),
            }),
        }),
        { title: 'Dataset schema', description: "A dataset's fields and their types.", mimeType: JSON_TYPE },
        async (uri, variables) => {
            const dataset = decodeURIComponent(String(variables.dataset));
            return json(uri, { dataset, fields: await datasetFields(settings, dataset) });
        },
    );

    server.registerPrompt(
        'write_query',
        {
            title: 'Write an APL query',
            description: 'Asks for an APL query that does a task, with the schema of the dataset attached.',
            argsSchema: { task: z.string().describe('what the query should do'), dataset: z.string().describe('the dataset to query') },
        },
        async ({ task, dataset }) => {
            const fields = await datasetFields(settings, dataset);
            const schema = fields.map(f => `- ${f.name}: ${f.type}`).join('\n');
            const text = [
                `Write an APL (Axiom Processing Language) query for this task: ${task}`,
                '',
                `The dataset is ['${dataset}'] with these fields:`,
                schema,
                '',
                'Check the query with the check_apl tool and fix every error before you answer; use apl_reference for a function you are unsure of.',
            ].join('\n');
            return { messages: [{ role: 'user', content: { type: 'text', text: settings.redact(text) } }] };
        },
    );

    server.registerPrompt(
        'fix_query',
        { title: 'Fix an APL query', description: 'Asks to fix an APL query, with its diagnostics attached.', argsSchema: { query: z.string().describe('the APL query') } },
        async ({ query }) => {
            const diagnostics = await checkText(query, { schema: settings.schemaFile?.provider });
            const list = diagnostics.map(d => `${d.range.start.line + 1}:${d.range.start.character + 1}: ${d.severity} ${d.code} ${d.message}`).join('\n');
            const text = [
                'Fix this APL (Axiom Processing Language) query:',
                '```apl',
                query,
                '```',
                diagnostics.length ? `The checker reports:\n${list}` : 'The checker reports no problems; look for a logic error.',
                '',
                'The apl://diagnostics resource explains each code. Check your fix with the check_apl tool.',
            ].join('\n');
            return { messages: [{ role: 'user', content: { type: 'text', text } }] };
        },
    );
}
