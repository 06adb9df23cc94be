// The validator module is fetched as a .wasm file next to the package's JS. Bundlers that do not
// emit `new URL(…, import.meta.url)` assets leave that file behind: the embedded copy must then
// take over, so validation still works (and still fails closed on invalid input).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const pkg = new URL('..', import.meta.url).pathname;

test('without the .wasm file, the embedded validator validates', async () => {
  const copy = mkdtempSync(join(tmpdir(), 'warden-no-wasm-'));
  try {
    for (const part of ['dist', 'wasm', 'package.json']) cpSync(join(pkg, part), join(copy, part), { recursive: true });
    rmSync(join(copy, 'wasm', 'warden_validate_bg.wasm'));
    assert.ok(!existsSync(join(copy, 'wasm', 'warden_validate_bg.wasm')));
    const { webmcp } = await import(pathToFileURL(join(copy, 'dist', 'index.js')).href);
    const tool = webmcp(({ q }) => `found ${q}`, {
      name: 'search',
      description: 'Search',
      inputSchema: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
    });
    const bad = await tool.invoke({ q: 7 });
    assert.equal(bad.ok, false);
    assert.equal(bad.error.reason, 'invalid_arguments');
    assert.equal(bad.error.diagnostics[0].path, '/q');
    const good = await tool.invoke({ q: 'mug' });
    assert.equal(good.ok, true);
    assert.equal(good.result.content[0].text, 'found mug');
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
