// The official JSON-Schema-Test-Suite (tests/json-schema-test-suite/) through the BUILT validator
// module, loaded as the package loads it: patterns run on this JS engine's RegExp (the `u` flag),
// which `cargo test` cannot check (natively, patterns run on regress; tests/json_schema_suite.rs).
// It is the build of the module with one more export (`suite-export`, in pkg-js/wasm-test/),
// which sets the suite's dialect and remote documents; pages download the module without it.
//
// - Every required test of draft2020-12/ and draft7/ must pass, except the entries of
//   known-failures.json: `deliberate` ones are run with the expectation inverted (we assert
//   `format` in 2020-12), `knownFailures` ones may fail (there are none at present).
// - The optional ecmascript-regex.json and non-bmp-regex.json of both drafts must pass too: they
//   are what running patterns on an ECMAScript engine is for.
//
// As natively, documents at http://localhost:1234/ are read from the suite's remotes/ folder and
// handed to the module (that export); schemas without `$schema` take the folder's dialect.
// Nothing is fetched. Build first: `node pkg-js/build.mjs`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeBase64 } from '../lib/boundary/embedded-bytes.js';
import { unlzmaAsync } from '../lib/boundary/unlzma.js';
import { patternsSettled, validatorEngines } from '../wasm/pattern-host.js';
import { installPatternLoaders } from '../lib/boundary/patterns.js';
import { instantiate } from '../lib/validator/validator-module.js';
import { encodeJson } from '../lib/boundary/wire.js';

/** A validator answer read (`validate` answers nothing for a valid instance). */
const answerOf = (text) => (text === '' ? { ok: true, valid: true, diagnostics: [], summary: '' } : JSON.parse(text));

/**
 * The suite build's extra export: drops every compiled schema and sets the dialect of schemas
 * without `$schema` and the documents `$ref` may name (URI to document, in the wire format).
 */
function testConformanceSuite(validator, dialect, documents) {
  validator.generation += 1; // every handle is gone
  return validator.guard('setting up the conformance suite', () => validator.glue.__test_conformance_suite(dialect, documents));
}

let suiteModule;
/** The suite build of the validator module, instantiated once as the package's loader does. */
function loadValidator() {
  suiteModule ??= (async () => {
    const [glue, host, chunk] = await Promise.all([
      import('../wasm-test/warden_validate_suite.js'),
      import('../wasm-test/validator-host.js'),
      import('../wasm-test/warden_validate_suite_bytes.js'),
    ]);
    host.setJsonEncoder(encodeJson);
    installPatternLoaders();
    host.setPatternEngines(validatorEngines);
    const validator = await instantiate(glue, host, await unlzmaAsync(decodeBase64(chunk.WASM_LZMA_BASE64)));
    // The pattern judgement and the linear engine, loaded up front (docs/behaviour.md,
    // "Patterns"): the suite's schemas are compiled and validated synchronously below. A pattern
    // the judgement routes to the linear engine asks for both.
    const warm = JSON.parse(validator.compile(encodeJson({ pattern: '\\d+$' })));
    for (let waiting = patternsSettled(); waiting !== undefined; waiting = patternsSettled()) await waiting;
    validator.dropSchema(warm.handle);
    return validator;
  })();
  return suiteModule;
}

const suite = fileURLToPath(new URL('../../tests/json-schema-test-suite/', import.meta.url));
const listed = JSON.parse(readFileSync(join(suite, 'known-failures.json'), 'utf8'));
const DRAFTS = { 'draft2020-12': '2020-12', draft7: 'draft-07' };
const OTHER_DRAFT_FOLDERS = ['draft3', 'draft4', 'draft6', 'draft7', 'draft2019-09', 'draft2020-12', 'draft-next'];

/** `{ uri: document }` for the remotes a draft may reference (as tests/json_schema_suite.rs). */
function remotes(draft) {
  const out = {};
  const walk = (dir, rel) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const relName = rel === '' ? name : `${rel}/${name}`;
      if (statSync(path).isDirectory()) {
        if (rel === '' && OTHER_DRAFT_FOLDERS.includes(name) && name !== draft) continue;
        walk(path, relName);
      } else if (name.endsWith('.json')) {
        out[`http://localhost:1234/${relName}`] = JSON.parse(readFileSync(path, 'utf8'));
      }
    }
  };
  walk(join(suite, 'remotes'), '');
  // Its `$id` hides under `$defs`, which draft-07 does not know (the native harness leaves it out too).
  if (draft === 'draft7') delete out['http://localhost:1234/nested-absolute-ref-to-string.json'];
  return out;
}

const jsonFiles = (dir) => readdirSync(dir).filter((f) => f.endsWith('.json')).sort();
const entry = (list, draft, file, c, t) => list.find((e) => e.draft === draft && e.file === file && e.case === c.description && e.test === t.description);

/** Runs one file through the module; answers the outcome of each test. */
function runFile(validator, draft, file, path, { useList }) {
  const results = [];
  for (const c of JSON.parse(readFileSync(path, 'utf8'))) {
    const compiled = JSON.parse(validator.compile(encodeJson(c.schema)));
    for (const t of c.tests) {
      const deliberate = useList ? entry(listed.deliberate, draft, file, c, t) : undefined;
      const known = useList ? entry(listed.knownFailures, draft, file, c, t) : undefined;
      const expected = deliberate ? !t.valid : t.valid;
      let got;
      if (!compiled.ok) got = `schema did not compile: ${compiled.error.message}`;
      else {
        const answer = answerOf(validator.validate(compiled.handle, encodeJson(t.data), 64));
        got = answer.ok ? answer.valid : `validate refused: ${answer.error.message}`;
        if (answer.ok) {
          for (const d of answer.diagnostics) {
            assert.ok(d.keyword !== '' && d.message !== '' && (d.path === '' || d.path.startsWith('/')), `malformed diagnostic ${JSON.stringify(d)}`);
          }
        }
      }
      results.push({ label: `${draft}/${file} | ${c.description} | ${t.description}`, passed: got === expected, got, expected, deliberate, known });
    }
    if (compiled.ok) validator.dropSchema(compiled.handle);
  }
  return results;
}

for (const [draft, dialect] of Object.entries(DRAFTS)) {
  test(`${draft}: every required test passes through the built module (known-failures.json applied)`, async (t) => {
    const validator = await loadValidator();
    assert.deepEqual(JSON.parse(testConformanceSuite(validator, dialect, encodeJson(remotes(draft)))), { ok: true });
    const results = [];
    for (const file of jsonFiles(join(suite, 'tests', draft))) results.push(...runFile(validator, draft, file, join(suite, 'tests', draft, file), { useList: true }));
    const unexpected = results.filter((r) => !r.passed && !r.known).map((r) => `${r.label}: got ${r.got}, expected ${r.expected}`);
    const inverted = results.filter((r) => r.passed && r.deliberate).length;
    const nowPassing = results.filter((r) => r.passed && r.known).map((r) => r.label);
    t.diagnostic(`${draft}: ${results.filter((r) => r.passed).length}/${results.length} passed (${inverted} with the expectation inverted on purpose); ${nowPassing.length} listed failures pass now`);
    for (const label of nowPassing) t.diagnostic(`listed as a known failure but passes: ${label}`);
    assert.ok(results.length > 800, `only ${results.length} tests found`);
    assert.deepEqual(unexpected, [], `${unexpected.length} unexpected failure(s)`);
    const seen = new Set(results.filter((r) => r.deliberate || r.known).map((r) => r.deliberate ?? r.known));
    const stale = [...listed.deliberate, ...listed.knownFailures].filter((e) => e.draft === draft && !seen.has(e));
    assert.deepEqual(stale, [], 'known-failures.json names tests the suite does not have');
    assert.equal(validator.replacements, 0, 'the module never trapped');
  });

  test(`${draft}: the optional ECMAScript regex tests pass (ecmascript-regex.json, non-bmp-regex.json)`, async (t) => {
    const validator = await loadValidator();
    assert.deepEqual(JSON.parse(testConformanceSuite(validator, dialect, encodeJson({}))), { ok: true });
    const results = [];
    for (const file of ['ecmascript-regex.json', 'non-bmp-regex.json']) results.push(...runFile(validator, draft, file, join(suite, 'tests', draft, 'optional', file), { useList: false }));
    t.diagnostic(`${draft} optional regex: ${results.filter((r) => r.passed).length}/${results.length} passed`);
    assert.ok(results.length > 40, `only ${results.length} tests found`);
    assert.deepEqual(results.filter((r) => !r.passed).map((r) => `${r.label}: got ${r.got}, expected ${r.expected}`), []);
  });
}
