// A page that makes and drops tools with JSON Schemas keeps only the schemas still in use: each
// compiled schema holds a reference in the validator module, released when its schema object is
// collected (validation.ts). Counts, never bytes, so it cannot be flaky about memory.
import test from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';

v8.setFlagsFromString('--expose-gc');
const gc = vm.runInNewContext('gc');
// The same module instances the package uses (the workspace link resolves to these files).
const { webmcp } = await import('../lib/index.js');
const { loadValidator } = await import('../lib/validator/validator-loader.js');
const { schemaCount } = await import('../lib/validator/validator-module.js');

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Collects until the count stops falling: FinalizationRegistry callbacks run in a task of their
 * own some time after a GC, so one round without a change proves nothing (on a loaded machine
 * they came later than 10 ms, and the count was read before them). Settled means unchanged
 * over five rounds in a row; at most 200 rounds (~2 s).
 */
async function settle(count) {
  let last = count();
  for (let round = 0, stable = 0; round < 200 && stable < 5; round++) {
    gc();
    await sleep(10);
    const now = count();
    stable = now === last ? stable + 1 : 0;
    last = now;
  }
  return last;
}

test('schemas of dropped tools leave the validator module; schemas in use stay', async () => {
  const validator = await loadValidator();
  const kept = webmcp(({ n }) => n, { name: 'kept_schema_tool', inputSchema: { type: 'object', properties: { n: { type: 'integer', minimum: 0 } } } });
  assert.equal((await kept.invoke({ n: 1 })).ok, true);
  const baseline = await settle(() => schemaCount(validator));
  const made = async (i) => {
    const t = webmcp(({ n }) => n, { name: `dropped_${i}`, inputSchema: { type: 'object', properties: { n: { type: 'integer', maximum: i } } } });
    assert.equal((await t.invoke({ n: i + 1 })).ok, false, 'the schema was compiled and used');
  };
  for (let i = 0; i < 300; i++) await made(i);
  assert.ok(schemaCount(validator) >= baseline + 1, 'the dropped tools compiled schemas');
  const after = await settle(() => schemaCount(validator));
  assert.ok(after <= baseline + 5, `schemas of collected tools are freed: ${after} held, ${baseline} before`);
  // The tool still held keeps its schema and validates.
  assert.equal((await kept.invoke({ n: -1 })).ok, false);
  assert.equal((await kept.invoke({ n: 2 })).ok, true);
});
