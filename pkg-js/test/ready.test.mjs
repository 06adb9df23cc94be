// ready(): the optional warm-up. In a fresh process (the core not loaded yet), it decodes and
// compiles the core without the synchronous path, and the first webmcp() then only instantiates.
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const dist = fileURLToPath(new URL('../lib/', import.meta.url));

test('ready() compiles the core off the synchronous path; webmcp() afterwards works; ready() settles once', () => {
  const script = `
    const core = await import(${JSON.stringify(dist + 'boundary/core.js')});
    const { webmcp, ready } = await import(${JSON.stringify(dist + 'index.js')});
    const before = core.liveGeneration();
    const first = ready();
    const second = ready();
    await Promise.all([first, second]);
    const after = core.liveGeneration();
    const t = webmcp(({ n }) => n * 2, { name: 'twice', description: 'Doubles' });
    const outcome = await t.invoke({ n: 21 });
    console.log(JSON.stringify({ before, after, same: first === second, text: outcome.result.content[0].text }));
  `;
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n').pop();
  const result = JSON.parse(out);
  assert.equal(result.before, -1, 'nothing loaded at import');
  assert.ok(result.after >= 1, 'ready() leaves a live core');
  assert.equal(result.same, true, 'concurrent ready() calls share one load');
  assert.equal(result.text, '42');
});
