// The package's types, as users compile against them: test-types/ is type-checked with
// `tsc --noEmit` against the built declarations (dist/*.d.ts, through the package's exports),
// under `strict`, with `moduleResolution` bundler and node16. Its files hold positive cases and
// `@ts-expect-error` cases (an error that goes away fails tsc: "Unused '@ts-expect-error'"):
// inference from zod, valibot and JSON Schema, hook contexts, invoke, React's useWebMCP,
// policies and simple-webmcp's type names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runTsc } from '../test-support/tsc.mjs';

const pkgRoot = fileURLToPath(new URL('..', import.meta.url));

for (const config of ['tsconfig.bundler.json', 'tsconfig.node16.json']) {
  test(`test-types/ type-checks against the built declarations (${config}, strict)`, { timeout: 120_000 }, async (t) => {
    assert.ok(existsSync(path.join(pkgRoot, 'dist', 'index.d.ts')), 'build the package first (node pkg-js/build.mjs)');
    const started = Date.now();
    const { code, output } = await runTsc(['-p', path.join('test-types', config), '--pretty', 'false'], pkgRoot);
    t.diagnostic(`tsc -p test-types/${config}: ${Date.now() - started} ms`);
    assert.equal(code, 0, `tsc reported errors:\n${output}`);
  });
}
