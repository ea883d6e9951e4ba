import { expectHover } from 'langium/test';
import { describe, it } from 'vitest';
import { lspServices } from './lsp-services.js';

const hover = expectHover(lspServices());

describe('hover', () => {
    it("['sample-http-logs'] | summarize <|>count() by status", async () => {
        await hover({ text: "['sample-http-logs'] | summarize <|>count() by status", index: 0, hover: /```apl\ncount\(\)\n```[\s\S]*aggregation[\s\S]*\*\*Example\*\*/, disposeAfterCheck: true });
    });

    it("['sample-http-logs'] | extend n = <|>strlen(uri)", async () => {
        await hover({ text: "['sample-http-logs'] | extend n = <|>strlen(uri)", index: 0, hover: /strlen\(.*: string\)[\s\S]*Example/, disposeAfterCheck: true });
    });

    it("['sample-http-logs'] | <|>where status == '500'", async () => {
        await hover({ text: "['sample-http-logs'] | <|>where status == '500'", index: 0, hover: /\| where Predicate[\s\S]*Keeps only the rows/, disposeAfterCheck: true });
    });

    it("['sample-http-logs'] | <|>mv-expand x", async () => {
        await hover({ text: "['sample-http-logs'] | <|>mv-expand x", index: 0, hover: /mv-expand/, disposeAfterCheck: true });
    });

    it("['sample-http-logs'] | where uri <|>contains 'api'", async () => {
        await hover({ text: "['sample-http-logs'] | where uri <|>contains 'api'", index: 0, hover: /a contains b[\s\S]*case-insensitive/, disposeAfterCheck: true });
    });

    it("['sample-http-logs'] | where <|>status == '500'", async () => {
        await hover({ text: "['sample-http-logs'] | where <|>status == '500'", index: 0, hover: /\(field\) status: string/, disposeAfterCheck: true });
    });

    it("['sample-http-logs'] | where <|>['geo.city'] == 'Paris'", async () => {
        await hover({ text: "['sample-http-logs'] | where <|>['geo.city'] == 'Paris'", index: 0, hover: /\(field\) \['geo\.city'\]: string/, disposeAfterCheck: true });
    });

    it("['sample-http-logs'] | where geo.<|>city == 'Paris'", async () => {
        await hover({ text: "['sample-http-logs'] | where geo.<|>city == 'Paris'", index: 0, hover: /\['geo\.city'\]: string/, disposeAfterCheck: true });
    });

    it("['sample-http-logs'] | extend ms = req_duration_ms * 2 | where <|>ms > 10", async () => {
        await hover({ text: "['sample-http-logs'] | extend ms = req_duration_ms * 2 | where <|>ms > 10", index: 0, hover: /\(column\) ms: real[\s\S]*extend/, disposeAfterCheck: true });
    });

    it("let threshold = 100;\n['sample-http-logs'] | where req_duration_ms > <|>threshold", async () => {
        await hover({ text: "let threshold = 100;\n['sample-http-logs'] | where req_duration_ms > <|>threshold", index: 0, hover: /let threshold: long/, disposeAfterCheck: true });
    });

    it("let <|>errors = ['sample-http-logs'] | where status == '500';\nerrors | count", async () => {
        await hover({ text: "let <|>errors = ['sample-http-logs'] | where status == '500';\nerrors | count", index: 0, hover: /let errors: table[\s\S]*req_duration_ms: real/, disposeAfterCheck: true });
    });

    it("<|>['sample-http-logs'] | count", async () => {
        await hover({ text: "<|>['sample-http-logs'] | count", index: 0, hover: /dataset \['sample-http-logs'\][\s\S]*fields/, disposeAfterCheck: true });
    });

    it("['sample-http-logs'] | where status == <|>'500'", async () => {
        await hover({ text: "['sample-http-logs'] | where status == <|>'500'", index: 0, hover: undefined, disposeAfterCheck: true });
    });
});

describe('hover on a tabular operator: the schema before and after it', () => {
    it("['sample-http-logs'] | project status, ms = req_duration_ms | <|>summarize n = count() by status", async () => {
        await hover({
            text: "['sample-http-logs'] | project status, ms = req_duration_ms | <|>summarize n = count() by status",
            index: 0,
            hover: /\*\*Before\*\* \(2 columns\)\n\n```apl\n\(status: string, ms: real\)\n```\n\n\*\*After\*\* \(2 columns\)\n\n```apl\n\(status: string, n: long\)\n```/,
            disposeAfterCheck: true,
        });
    });

    it("['sample-http-logs'] | project status, ms = req_duration_ms | <|>where ms > 10", async () => {
        await hover({
            text: "['sample-http-logs'] | project status, ms = req_duration_ms | <|>where ms > 10",
            index: 0,
            hover: /\*\*Before\*\* \(2 columns\)\n\n```apl\n\(status: string, ms: real\)\n```\n\n\*\*After\*\*: the same columns/,
            disposeAfterCheck: true,
        });
    });

    it("['unknown-dataset'] | <|>extend x = 1", async () => {
        await hover({
            text: "['unknown-dataset'] | <|>extend x = 1",
            index: 0,
            hover: /\*\*After\*\* \(3 columns, and any other fields of the source\)\n\n```apl\n\(_time: datetime, _sysTime: datetime, x: long\)\n```/,
            disposeAfterCheck: true,
        });
    });
});
