// Lint rules for Tern. Beyond the recommended sets, it enforces the architecture's boundaries:
// only the shell imports `electron`, and the renderer takes nothing but types from electron/.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'release/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-restricted-imports': ['error', { paths: [{ name: 'electron', message: 'Only electron/main.ts, electron/preload.ts and electron/shell/ may import electron.' }] }],
    },
  },
  {
    files: ['electron/main.ts', 'electron/preload.ts', 'electron/shell/**', 'e2e/electron*.ts'],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['renderer/**'],
    rules: {
      '@typescript-eslint/no-restricted-imports': ['error', {
        patterns: [{ group: ['**/electron/**', '../electron/*'], allowTypeImports: true, message: 'The renderer imports only types from electron/.' }],
      }],
    },
  },
);
