// ESLint (flat config): typescript-eslint's recommended rules over the project's own sources.
// Run by `npm test` (npm run lint). Generated and bundled files are not ours to lint.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
    {
        ignores: [
            'out/**',
            'dist/**',
            'coverage/**',
            'scratch/**',
            '**/node_modules/**',
            'language/generated/**',
            'language/parser/*.generated.ts',
            'client/vscode/dist/**',
            'client/vscode/out/**',
            // A build's staging folder (esbuild.mjs), left behind only by a build that crashed.
            '.build-*/**',
        ],
    },
    js.configs.recommended,
    ...tseslint.configs.recommended,
    {
        // The build and bench scripts are plain Node modules.
        files: ['**/*.mjs', '**/*.js'],
        languageOptions: { globals: globals.node },
    },
    {
        rules: {
            // `_`-prefixed names are deliberately unused (callbacks with a fixed signature).
            '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
        },
    },
);
