/** A notebook is one script in cell order: earlier cells' lets and `// as NAME` results reach later cells. */
import { describe, expect, it } from 'vitest';
import type { NotebookCell } from '../../../client/notebook/aplnb.js';
import { cellLine, cellScript, resultName } from '../../../client/notebook/cell-script.js';
import { createEngine } from '../../../language/eval/engine.js';
import { generateSample } from '../../../language/samples/index.js';

const apl = (text: string): NotebookCell => ({ kind: 'apl', text });

describe('cell scripts', () => {
    it("let threshold = 400;  then  ['sample-http-logs'] | where toint(status) > threshold | count", async () => {
        const cells = [apl('let threshold = 400;'), { kind: 'markdown', text: 'let not_apl = 1;' } as NotebookCell, apl("['sample-http-logs'] | where toint(status) >= threshold | count")];
        const script = cellScript(cells, 2);
        expect(script.text).toBe("let threshold = 400;\n['sample-http-logs'] | where toint(status) >= threshold | count");
        expect(script.preludeLines).toBe(1);
        const engine = createEngine();
        engine.createDataset('sample-http-logs');
        engine.ingest('sample-http-logs', generateSample('sample-http-logs', { rows: 500, seed: 1 }));
        const viaScript = await engine.query(script.text, {});
        const direct = await engine.query("['sample-http-logs'] | where toint(status) >= 400 | count", {});
        expect(viaScript.tables[0].columns).toEqual(direct.tables[0].columns);
    });

    it("// as errors  names a cell's result for the cells below", () => {
        const cells = [apl("// as errors\n['sample-http-logs'] | where status == '500'"), apl('errors | count')];
        expect(resultName(cells[0].text)).toBe('errors');
        expect(cellScript(cells, 1).text).toBe("let errors = (['sample-http-logs'] | where status == '500');\nerrors | count");
    });

    it('a cell with a syntax error lends nothing; positions map back past the prelude', () => {
        const cells = [apl('let a = 1;'), apl('let b = ;'), apl('print x = a')];
        const script = cellScript(cells, 2);
        expect(script.text).toBe('let a = 1;\nprint x = a');
        expect(cellLine(script, 2)).toBe(1);
        expect(cellLine(script, 1)).toBeUndefined();
    });
});
