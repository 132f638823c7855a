import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import townhall from './tools/eslint/package-boundaries.mjs';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', '.nx/**', '.townhall/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  {
    files: ['**/*.mjs', '**/*.js'],
    languageOptions: { globals: globals.node },
  },
  {
    // The gateway never loads what only the domain services need (TypeORM alone is 30 MB of
    // resident memory): '@townhall/platform' has all it uses. Its tests may set up a stream.
    files: ['apps/auth-gateway/src/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: '@townhall/platform/service',
              message: "Domain services only: use '@townhall/platform'.",
            },
            { name: 'typeorm', message: 'The gateway holds no database.' },
            { name: 'pg', message: 'The gateway holds no database.' },
          ],
          patterns: [{ group: ['typeorm/*', 'pg/*'], message: 'The gateway holds no database.' }],
        },
      ],
    },
  },
  {
    // Which package may import which, and every package declares what it imports
    // (tools/eslint/package-boundaries.mjs; README "Architecture").
    files: ['**/*.ts', '**/*.mts', '**/*.mjs', '**/*.js'],
    plugins: { townhall },
    rules: { 'townhall/package-boundaries': 'error' },
  },
);
