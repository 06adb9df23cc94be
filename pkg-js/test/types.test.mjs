// The package's types, as users compile against them: test-types/ is type-checked with
// `tsc --noEmit` against the built declarations (dist/types/*.d.ts, through the package's exports),
// under `strict` and `skipLibCheck: false` (so the declarations themselves are checked), with
// `moduleResolution` bundler and node16, on TypeScript 5.4 (the oldest the package supports:
// before 5.7, typed arrays are not generic) and on the latest. Its files hold positive cases and
// `@ts-expect-error` cases (an error that goes away fails tsc: "Unused '@ts-expect-error'"):
// inference from zod, valibot and JSON Schema, hook contexts, invoke, React's useWebMCP,
// policies and simple-webmcp's type names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMPILERS, runTsc } from '../test-support/tsc.mjs';

const pkgRoot = fileURLToPath(new URL('..', import.meta.url));

test('test-types/ checks the declarations themselves (skipLibCheck: false)', () => {
  const config = JSON.parse(readFileSync(path.join(pkgRoot, 'test-types', 'tsconfig.bundler.json'), 'utf8'));
  assert.equal(config.compilerOptions.skipLibCheck, false);
});

for (const compiler of Object.keys(COMPILERS)) {
  for (const config of ['tsconfig.bundler.json', 'tsconfig.node16.json']) {
    test(`test-types/ type-checks against the built declarations (TypeScript ${compiler}, ${config}, strict)`, { timeout: 180_000 }, async (t) => {
      assert.ok(existsSync(path.join(pkgRoot, 'dist', 'types', 'index.d.ts')), 'build the package first (node pkg-js/build.mjs)');
      const started = Date.now();
      const { code, output } = await runTsc(['-p', path.join('test-types', config), '--pretty', 'false'], pkgRoot, compiler);
      t.diagnostic(`tsc (${compiler}) -p test-types/${config}: ${Date.now() - started} ms`);
      assert.equal(code, 0, `tsc ${compiler} reported errors:\n${output}`);
    });
  }
}
