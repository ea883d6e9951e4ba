import { testCodeAction } from 'langium/test';
import { describe, it } from 'vitest';
import { IssueCodes } from '../../../language/apl-issue-codes.js';
import { lspServices } from './lsp-services.js';

const fix = testCodeAction(lspServices());

describe('quick fixes', () => {
    it("['sample-http-logs'] | where stauts == '500'", async () => {
        await fix("['sample-http-logs'] | where stauts == '500'", IssueCodes.UnknownField, "['sample-http-logs'] | where status == '500'");
    });

    it("['sample-http-logs'] | where ['geo.cty'] == 'Paris'", async () => {
        await fix("['sample-http-logs'] | where ['geo.cty'] == 'Paris'", IssueCodes.UnknownField, "['sample-http-logs'] | where ['geo.city'] == 'Paris'");
    });

    it("['sample-http-logs'] | project-away stauts", async () => {
        await fix("['sample-http-logs'] | project-away stauts", IssueCodes.UnknownField, "['sample-http-logs'] | project-away status");
    });

    it("['sample-http-logs'] | summarize countt()", async () => {
        await fix("['sample-http-logs'] | summarize countt()", IssueCodes.UnknownFunction, "['sample-http-logs'] | summarize count()");
    });

    it("['sample-http-logs'] | extend n = strlenn(uri)", async () => {
        await fix("['sample-http-logs'] | extend n = strlenn(uri)", IssueCodes.UnknownFunction, "['sample-http-logs'] | extend n = strlen(uri)");
    });

    it("['sample-http-log'] | count", async () => {
        await fix("['sample-http-log'] | count", IssueCodes.UnknownDataset, "['sample-http-logs'] | count");
    });

    it("['sample-http-logs'] | where _time > ago(2w)", async () => {
        await fix("['sample-http-logs'] | where _time > ago(2w)", IssueCodes.WeekTimespan, "['sample-http-logs'] | where _time > ago(14d)");
    });

    it("['sample-http-logs']\n| summarize count() by bin(_time, 1h)\n| render timechart with (title=\"Requests\")", async () => {
        await fix("['sample-http-logs']\n| summarize count() by bin(_time, 1h)\n| render timechart with (title=\"Requests\")", IssueCodes.NoRender, "['sample-http-logs']\n| summarize count() by bin(_time, 1h)");
    });

    it("['sample-http-logs'] | render piechart | take 5", async () => {
        await fix("['sample-http-logs'] | render piechart | take 5", IssueCodes.NoRender, "['sample-http-logs'] | take 5");
    });

    it("['sample-http-logs'] | where zzzzzzzz == 1 (no suggestion: no fix)", async () => {
        await fix("['sample-http-logs'] | where zzzzzzzz == 1", IssueCodes.UnknownField, undefined);
    });
});
