// `npm run package:vscode`: packs client/vscode (manifest + dist/ bundles, no node_modules) into
// out/apl-tools-<version>.vsix (or `--out FILE`) with @vscode/vsce, offline. Run after `npm run bundle`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const manifest = JSON.parse(readFileSync(join(root, 'client/vscode/package.json'), 'utf8'));
// `--out FILE`: test suites running side by side each pack their own file (one shared file was read half-written).
const outArg = process.argv.indexOf('--out');
const out = outArg > 0 && process.argv[outArg + 1] ? resolve(process.argv[outArg + 1]) : join(root, 'out', `${manifest.name}-${manifest.version}.vsix`);
mkdirSync(dirname(out), { recursive: true });
const vsce = join(dirname(createRequire(import.meta.url).resolve('@vscode/vsce/package.json')), 'vsce');
execFileSync(process.execPath, [vsce, 'package', '--no-dependencies', '--allow-missing-repository', '--out', out], { cwd: join(root, 'client/vscode'), stdio: ['ignore', 'inherit', 'inherit'] });
console.log(out);
