// Lint rules of the project (`npm run lint`). typescript-eslint's recommended rules, React hooks rules for the
// admin panel, and one architectural rule: a feature folder of src/ never reaches into another feature's entities or
// repositories (it calls that feature's service); type-only imports are allowed. See docs/ARCHITECTURE.md.
import { readdirSync, statSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';

/** Folders that wire every feature together and so may import any entity. */
const WIRING = new Set(['database']);
const features = readdirSync('src').filter((name) => statSync(`src/${name}`).isDirectory() && !WIRING.has(name));

const boundaries = features.map((feature) => ({
  files: [`src/${feature}/**/*.ts`],
  rules: {
    '@typescript-eslint/no-restricted-imports': [
      'error',
      {
        patterns: [
          {
            regex: `^\\.\\./(?!${feature}/)[a-z-]+/(?:.*/)?(?:entities|repositories)/`,
            allowTypeImports: true,
            message: "Another feature's tables belong to its repository: call that feature's service or repository port instead.",
          },
          {
            regex: `^\\.\\./(?!${feature}/)[a-z-]+/(?:.*/)?[a-z-]+\\.repository$`,
            allowTypeImports: true,
            message: "Another feature's repository is its own: call that feature's service instead.",
          },
        ],
      },
    ],
  },
}));

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'coverage/**', 'test-results/**', 'admin-ui/test-results/**', 'data/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        process: 'readonly',
        console: 'readonly',
        require: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        Buffer: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
        setInterval: 'readonly',
        clearInterval: 'readonly',
        setImmediate: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/no-require-imports': 'off',
    },
  },
  ...boundaries,
  {
    // Node 20's V8 gives `{ ...base, more }` a hidden class of its own every time it runs (src/common/with-fields.ts):
    // on the request paths that meant promoted garbage and megamorphic reads. The admin-only folders are not held to it.
    files: ['src/{serving,clicks,exchange,compat,stats,trust,common,accounts,redis,profiles,conversions}/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/*.contract.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ObjectExpression[properties.length>1] > SpreadElement:first-child',
          message:
            'An object literal that starts with a spread gets a hidden class per run in Node 20: use withFields(base, fields) (src/common/with-fields.ts).',
        },
      ],
    },
  },
  {
    files: ['admin-ui/src/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { 'react-hooks/rules-of-hooks': 'error', 'react-hooks/exhaustive-deps': 'warn' },
  },
  {
    // Records are typed (react-admin's RaRecord, the API answers' interfaces in dataProvider.ts): `any` stays out.
    files: ['admin-ui/src/**/*.{ts,tsx}', 'admin-ui/e2e/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'error' },
  },
);
