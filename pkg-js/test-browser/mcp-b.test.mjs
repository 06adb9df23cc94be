// Browser test: the package on a page running MCP-B (`@mcp-b/global` 5.1.0), with a real MCP
// client as the agent over MCP-B's tab transport (`@mcp-b/transports` 5.1.0): both client
// generations, `@modelcontextprotocol/sdk` 1.32.2's `Client` and `@modelcontextprotocol/client`
// 2.0.0's (issues 16 and 18). Chromium runs twice: with native WebMCP (MCP-B wraps it) and
// without (MCP-B brings its polyfill). Every result is checked against MCP's result schema with
// both SDKs' zod schemas. The page (mcp-b-page.js) is bundled with esbuild; each scenario runs
// on a fresh page.
//
// Needs the built package (pkg-js/dist), Debian's chromium (/usr/bin/chromium, or $CHROMIUM) and
// the pinned devDependencies. Without chromium the test is skipped, except under CI.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { browserSkipReason, launchChromium, startStaticServer, stopServer, watchErrors } from './demo-serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgRoot = path.resolve(here, '..');
const skipReason = browserSkipReason();

let outDir;
let served;
const browsers = {};

async function bundlePage() {
  const { build } = await import('esbuild');
  outDir = mkdtempSync(path.join(os.tmpdir(), 'warden-mcpb-'));
  // React's development build, so StrictMode double-invokes effects (the React scenario).
  await build({ entryPoints: [path.join(here, 'mcp-b-page.js')], bundle: true, format: 'esm', platform: 'browser', outdir: outDir, logLevel: 'error', define: { 'process.env.NODE_ENV': '"development"' } });
  copyFileSync(path.join(here, 'mcp-b-options.js'), path.join(outDir, 'mcp-b-options.js'));
  writeFileSync(
    path.join(outDir, 'index.html'),
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>webmcp-warden on MCP-B</title>' +
      '<script src="./mcp-b-options.js"></script></head><body><script type="module" src="./mcp-b-page.js"></script></body></html>',
  );
}

before(async () => {
  if (skipReason) return;
  assert.ok(existsSync(path.join(pkgRoot, 'dist', 'index.js')), 'pkg-js/dist/index.js is missing: build the package first');
  await bundlePage();
  served = await startStaticServer(outDir);
  browsers.native = await launchChromium();
  browsers.plain = await launchChromium({ nativeWebMCP: false });
});

after(async () => {
  await browsers.native?.close();
  await browsers.plain?.close();
  await stopServer(served?.server);
  if (outDir) rmSync(outDir, { recursive: true, force: true });
});

/** Runs `scenario(...args)` on a fresh page of `browser`; answers its JSON and the page's errors. */
async function run(browser, scenario, ...args) {
  const page = await browsers[browser].newPage();
  const errors = watchErrors(page);
  try {
    await page.goto(`${served.url}/`);
    await page.waitForFunction(() => window.__ready === true, null, { timeout: 15_000 });
    const out = await page.evaluate(([s, a]) => window.__mcpb[s](...a), [scenario, args]);
    return { out, errors };
  } finally {
    await page.close();
  }
}

const TOOLS = ['add', 'checkout', 'reviews', 'slow'];
const SUBJECTS = ['notes', 'secret', 'vault', 'reviewsDoc', 'profile', 'summarize'];
/** Every registration's status, tools first: `tools` for the tools, `subjects` for the resources and the prompt. */
const statuses = (tools, subjects) => Object.fromEntries([...TOOLS.map((name) => [name, tools]), ...SUBJECTS.map((name) => [name, subjects])]);

/** What every exercise (mcp-b-page.js) must show, whatever the order MCP-B came in. */
function checkExercise(out, label) {
  assert.deepEqual(out.listed.map((t) => t.name), TOOLS, `${label}: tools/list lists our tools`);
  const add = out.listed.find((t) => t.name === 'add');
  assert.deepEqual(add.inputSchema.required, ['a', 'b'], `${label}: the advertised schema is ours`);
  assert.deepEqual(add.inputSchema.properties, { a: { type: 'number' }, b: { type: 'number' } });
  for (const key of ['valid', 'invalid', 'denied', 'shaped', 'approved', 'refused']) {
    assert.deepEqual(out[key].schemaProblems, [], `${label}: the ${key} result conforms to MCP's CallToolResult`);
    assert.equal(out[key].topLevelProvenance, false, `${label}: no top-level provenance in the ${key} result`);
  }
  // Valid: the structured result, provenance in _meta.
  assert.equal(out.valid.isError, false);
  assert.deepEqual(out.valid.structured, { sum: 5 });
  assert.deepEqual(out.valid.provenance, { serverId: 'shop', truncated: false, flags: [] }, `${label}: provenance in _meta`);
  // Invalid: our refusal and our telemetry, not the SDK's "Input validation error".
  assert.equal(out.invalid.isError, true);
  assert.match(out.invalid.texts[0], /^Error: Validation failed: \/a /, `${label}: ${out.invalid.texts[0]}`);
  assert.doesNotMatch(out.invalid.texts.join(' '), /Input validation error/);
  assert.deepEqual(out.invalidTelemetry, [{ tool: 'add', status: 'error', errorKind: 'validation', errorReason: 'invalid_arguments' }], `${label}: the refusal reached our telemetry`);
  // Denied by a before-hook.
  assert.equal(out.denied.isError, true);
  assert.deepEqual(out.denied.texts, ['Denied: Not that number.']);
  // Shaped: hidden characters stripped, the SVG replaced by a notice, flags in provenance.
  assert.equal(out.shaped.isError, false);
  assert.equal(out.shaped.texts[0], 'Great mug!');
  assert.deepEqual(out.shaped.types, ['text', 'text']);
  assert.match(out.shaped.texts[1], /image\/svg\+xml/);
  assert.deepEqual([...out.shaped.provenance.flags].sort(), ['bidi', 'media_dropped', 'zero_width']);
  // Asked and approved; asked and refused by the approver.
  assert.deepEqual([out.approved.isError, out.approved.texts], [false, ['paid 42']]);
  assert.deepEqual([out.refused.isError, out.refused.texts], [true, ['Denied: Too expensive for an agent.']]);
  // Cancelled: the client's call ends, and the tool's own signal aborted.
  assert.match(out.cancelledCall, /^rejected/, `${label}: the cancelled call rejects (${out.cancelledCall})`);
  assert.equal(out.toolSignalAborted, true, `${label}: a cancelled MCP call aborts the tool's signal`);
  assert.deepEqual(out.cancelledTelemetry, [{ status: 'error', errorKind: 'aborted', errorReason: 'aborted' }], `${label}: the call ended as aborted`);

  // Resources: resources/list, resources/templates/list, resources/read.
  assert.deepEqual(out.resources, ['notes://today', 'reviews://mug', 'secret://plans', 'vault://keys'], `${label}: resources/list`);
  assert.deepEqual(out.resourceTemplates, ['user://{id}/profile']);
  const reads = out.reads;
  for (const uri of ['notes://today', 'reviews://mug', 'user://42/profile']) {
    assert.deepEqual(reads[uri].schemaProblems, [], `${label}: ${uri} conforms to MCP's ReadResourceResult`);
    assert.equal(reads[uri].topLevelProvenance, false);
  }
  assert.deepEqual(reads['notes://today'].texts, ['Buy milk.'], `${label}: an allowed read`);
  assert.deepEqual(reads['user://42/profile'].texts, ['Profile of user 42'], `${label}: a template read gets its variables`);
  assert.match(reads['secret://plans'].error, /Denied: Secrets stay on the page\./, `${label}: a hook-denied read`);
  assert.match(reads['vault://keys'].error, /Denied: The vault is not for agents\./, `${label}: a policy-denied read`);
  // Shaped: the zero-width space is gone, the SVG blob replaced by a text notice.
  assert.equal(reads['reviews://mug'].texts[0], 'Great mug');
  assert.match(reads['reviews://mug'].texts[1], /image\/svg\+xml/);
  assert.equal(reads['reviews://mug'].blobs, 0);
  assert.deepEqual([...reads['reviews://mug'].provenance.flags].sort(), ['media_dropped', 'zero_width']);
  // In order: notes://today, secret://plans, vault://keys, reviews://mug, user://42/profile. The
  // URI read is the agent's (a template's variables): a payload, absent without capturePayloads.
  assert.deepEqual(
    JSON.parse(JSON.stringify(out.readTelemetry)),
    [
      { status: 'ok', errorKind: undefined, errorReason: undefined },
      { status: 'error', errorKind: 'denied', errorReason: 'hook_denied' },
      { status: 'error', errorKind: 'denied', errorReason: 'rule' },
      { status: 'ok', errorKind: undefined, errorReason: undefined },
      { status: 'ok', errorKind: undefined, errorReason: undefined },
    ].map((e) => JSON.parse(JSON.stringify(e))),
    `${label}: resource_read.stop for every read, without the URI`,
  );

  // Prompts: prompts/list, prompts/get with arguments a hook rewrote, invalid arguments refused by us.
  assert.deepEqual(out.prompts, [{ name: 'summarize', arguments: ['tone', 'topic!'] }], `${label}: prompts/list`);
  assert.deepEqual(out.got.schemaProblems, [], `${label}: the prompt conforms to MCP's GetPromptResult`);
  assert.deepEqual(out.got.messages, [['user', 'Summarize mugs, dry.']], `${label}: the hook's rewrite reached the get`);
  assert.equal(out.got.description, 'A summary prompt', 'the description is shaped too');
  assert.deepEqual(out.got.provenance.flags, ['zero_width']);
  assert.deepEqual(out.promptHook, ['house-style:rewrite', 'house-style:rewrite']);
  assert.match(out.invalidPrompt.error ?? '', /Error: Validation failed: \/topic /, `${label}: our refusal of invalid arguments: ${JSON.stringify(out.invalidPrompt)}`);
  assert.deepEqual(JSON.parse(JSON.stringify(out.promptTelemetry)), [{ status: 'ok' }, { status: 'error', errorKind: 'validation', errorReason: 'invalid_arguments' }].map((e) => ({ errorKind: undefined, errorReason: undefined, ...e })).map((e) => JSON.parse(JSON.stringify(e))));
}

for (const gen of ['v1', 'v2']) {
  test(`[${gen}] MCP-B first: an MCP client lists and calls governed tools (valid, invalid, denied, asked, shaped, cancelled)`, { skip: skipReason }, async () => {
    const { out, errors } = await run('native', 'interop', gen);
    assert.equal(out.runtimeIsMcpB, true);
    assert.deepEqual(out.statuses, statuses('registered', 'registered'));
    checkExercise(out, `interop ${gen}`);
    assert.deepEqual(out.inPageRead, { ok: false, text: 'Denied: Secrets stay on the page.' }, 'in-page reads are governed the same');
    assert.deepEqual(out.inPageGet.messages, ['Summarize tea, dry.']);
    assert.deepEqual(out.inPageGet.provenance, { serverId: 'shop', truncated: false, flags: ['zero_width'] }, 'in-page gets carry provenance on the result');
    assert.deepEqual({ ...out.inPage.provenance, flags: [...out.inPage.provenance.flags].sort() }, { serverId: 'shop', truncated: false, flags: ['bidi', 'media_dropped', 'zero_width'] }, 'in-page callers read result.provenance');
    assert.equal(out.inPage.meta, null, 'in-page results keep provenance at the top level');
    assert.deepEqual(out.afterUnregister, ['checkout', 'reviews', 'slow'], 'unregister() removes the tool from tools/list');
    assert.deepEqual(out.resourcesAfterUnregister, ['notes://today', 'secret://plans', 'vault://keys'], 'unregister() removes a resource from resources/list');
    assert.deepEqual(out.promptsAfterUnregister, [], 'and a prompt from prompts/list');
    assert.deepEqual(errors.page, []);
  });

  test(`[${gen}] MCP-B after the tools, no native WebMCP: tools registered while there was no runtime become callable`, { skip: skipReason }, async () => {
    const { out, errors } = await run('plain', 'late', gen);
    assert.equal(out.worked, true, `no call through MCP-B worked; they failed with ${JSON.stringify(out.meanwhile)}`);
    assert.equal(out.native, false);
    assert.deepEqual(out.before, statuses('unsupported', 'unsupported'), 'no runtime: unsupported');
    assert.deepEqual(out.after, statuses('registered', 'registered'), 'status tells the truth once MCP-B is there');
    checkExercise(out, `late ${gen}`);
    assert.equal(out.mcpbListing, 1);
    console.log(`[${gen}] no native: MCP-B initialized → first working call in ${out.noticedMs.toFixed(1)} ms; meanwhile: ${JSON.stringify(out.failuresMeanwhile)}`);
    assert.deepEqual(errors.page, []);
  });

  test(`[${gen}] MCP-B after the tools, native WebMCP on: the registrations move to MCP-B (no MCP-B↔Chromium mirror left)`, { skip: skipReason }, async () => {
    const { out, errors } = await run('native', 'late', gen);
    assert.equal(out.worked, true, `no call through MCP-B worked; they failed with ${JSON.stringify(out.meanwhile)}`);
    assert.equal(out.native, true);
    assert.deepEqual(out.before, statuses('registered', 'unsupported'), 'native WebMCP has no resources or prompts');
    assert.deepEqual(out.after, statuses('registered', 'registered'));
    checkExercise(out, `late native ${gen}`);
    assert.equal(out.nativeListing, 1, 'Chromium lists the tool exactly once (MCP-B mirrors ours)');
    assert.equal(out.mcpbListing, 1);
    console.log(`[${gen}] native: MCP-B initialized → first working call in ${out.noticedMs.toFixed(1)} ms; meanwhile: ${JSON.stringify(out.failuresMeanwhile)}`);
    assert.deepEqual(errors.page, []);
  });
}

for (const gen of ['v1', 'v2']) {
  test(`[${gen}] React: useWebMCPResource / useWebMCPPrompt under a provider, in StrictMode, read by an MCP client`, { skip: skipReason }, async () => {
    const { out, errors } = await run('native', 'react', gen);
    assert.deepEqual(out.mounted, { status: 'registered', registered: true, supported: true });
    assert.equal(out.promptStatus, 'registered');
    assert.equal(out.listed, 1, 'StrictMode leaves exactly one registration');
    assert.equal(out.prompts, 1);
    assert.equal(out.read1, 'notes v1');
    assert.equal(out.providerReads1, 1, "the provider's resourceRead hook ran once");
    assert.equal(out.got, 'About MUGS', "the provider's promptGet hook rewrote the arguments");
    assert.deepEqual(out.order, ['read:global', 'read:provider', 'read:own', 'get:global', 'get:provider', 'get:own'], 'global → provider → own, for reads and gets');
    assert.equal(out.listedAfterRerender, 1, 'a re-render with inline options does not re-register');
    assert.equal(out.read2, 'notes v10', 'the latest committed read function');
    assert.equal(out.providerReads2, 11, 'and the latest committed provider hook');
    assert.equal(out.listedAfterUnmount, 0, 'unmount unregisters');
    assert.equal(out.promptsAfterUnmount, 0);
    assert.deepEqual(errors.page, []);
  });
}

test('a runtime that appears without any event is noticed by the next listTools() (what the check costs is printed)', { skip: skipReason }, async () => {
  const { out } = await run('plain', 'noticedOnCall');
  assert.equal(out.before, 'unsupported');
  assert.equal(out.untouched, 'unsupported', 'nothing happens until the page lists or calls');
  assert.deepEqual(out.registered, ['probe']);
  console.log(`runtime check: ${out.nsPerCheck.toFixed(1)} ns per listTools()/invokeTool()`);
});
