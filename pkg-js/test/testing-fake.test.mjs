// Tests of `webmcp-warden/testing`: the fake `document.modelContext` must follow the WebMCP
// draft (and Chrome 156 where the draft leaves room), rule by rule.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  FakeModelContext,
  ToolActivatedEvent,
  ToolCancelEvent,
  TOOL_NAME_PATTERN,
  createFakeModelContext,
  installFakeModelContext,
} from 'webmcp-warden/testing';

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Asserts that `promise` rejects with a DOMException of exactly that name. */
async function rejectsDOM(promise, name) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof DOMException, `expected a DOMException, got ${err}`);
    assert.equal(err.name, name);
    return true;
  });
}

/** Asserts that `promise` rejects with a TypeError (not a DOMException). */
async function rejectsType(promise) {
  await assert.rejects(promise, (err) => {
    assert.ok(err instanceof TypeError, `expected a TypeError, got ${err}`);
    return true;
  });
}

function tool(name, extra = {}) {
  return { name, description: `The ${name} tool`, execute: () => ({ ok: true }), ...extra };
}

describe('registerTool', () => {
  test('adds the tool at once, dispatches toolchange, and resolves only after it', async () => {
    const mc = createFakeModelContext();
    const order = [];
    mc.addEventListener('toolchange', () => order.push('toolchange'));
    const p = mc.registerTool(tool('a'));
    assert.ok(p instanceof Promise);
    assert.deepEqual(mc.registeredNames(), ['a'], 'the tool is registered synchronously');
    let resolved = false;
    p.then(() => { resolved = true; order.push('resolved'); });
    await Promise.resolve();
    await Promise.resolve();
    assert.equal(resolved, false, 'resolves in a later task, not a microtask');
    assert.deepEqual(order, []);
    assert.equal(await p, undefined);
    assert.deepEqual(order, ['toolchange', 'resolved']);
  });

  test('rejects a duplicate name with InvalidStateError and keeps the first tool', async () => {
    const mc = createFakeModelContext();
    await mc.registerTool(tool('dup', { description: 'first' }));
    await rejectsDOM(mc.registerTool(tool('dup', { description: 'second' })), 'InvalidStateError');
    const tools = await mc.getTools();
    assert.equal(tools.length, 1);
    assert.equal(tools[0].description, 'first');
  });

  test('a duplicate is rejected even while the first registration is pending', async () => {
    const mc = createFakeModelContext();
    const first = mc.registerTool(tool('x'));
    await rejectsDOM(mc.registerTool(tool('x')), 'InvalidStateError');
    await first;
  });

  test('rejects an empty description with InvalidStateError, a missing one with TypeError', async () => {
    const mc = createFakeModelContext();
    await rejectsDOM(mc.registerTool(tool('e', { description: '' })), 'InvalidStateError');
    const noDescription = tool('m');
    delete noDescription.description;
    await rejectsType(mc.registerTool(noDescription));
    assert.deepEqual(mc.registeredNames(), []);
  });

  test('name rule: 1-128 characters of [A-Za-z0-9_.-]', async () => {
    const mc = createFakeModelContext();
    for (const bad of ['', 'a b', 'tool/x', 'café', 'x'.repeat(129), 'a\n', 'emoji😀']) {
      await rejectsDOM(mc.registerTool(tool(bad)), 'InvalidStateError');
    }
    const noName = tool('n');
    delete noName.name;
    await rejectsType(mc.registerTool(noName));
    for (const good of ['x'.repeat(128), 'A-z_0.9', '.', '-_-']) {
      await mc.registerTool(tool(good));
    }
    assert.equal(mc.registeredNames().length, 4);
    assert.ok(TOOL_NAME_PATTERN.test('ok_name'));
    assert.ok(!TOOL_NAME_PATTERN.test('not ok'));
  });

  test('rejects an execute that is not a function with TypeError', async () => {
    const mc = createFakeModelContext();
    await rejectsType(mc.registerTool(tool('f', { execute: 42 })));
    const noExecute = tool('g');
    delete noExecute.execute;
    await rejectsType(mc.registerTool(noExecute));
    assert.deepEqual(mc.registeredNames(), []);
  });

  test('rejects an inputSchema JSON cannot serialize with the TypeError', async () => {
    const mc = createFakeModelContext();
    const cyclic = { type: 'object' };
    cyclic.self = cyclic;
    await rejectsType(mc.registerTool(tool('c', { inputSchema: cyclic })));
    await rejectsType(mc.registerTool(tool('u', { inputSchema: { toJSON: () => undefined } })));
    await rejectsType(mc.registerTool(tool('b', { inputSchema: { max: 1n } })));
    await rejectsType(mc.registerTool(tool('s', { inputSchema: 'not an object' })));
    await rejectsType(mc.registerTool(tool('o', { outputSchema: cyclic })));
    assert.deepEqual(mc.registeredNames(), []);
  });

  test('rejects with the reason of an already aborted signal (same object)', async () => {
    const mc = createFakeModelContext();
    const reason = new Error('gone before registration');
    const signal = AbortSignal.abort(reason);
    await assert.rejects(mc.registerTool(tool('p'), { signal }), (err) => err === reason);
    assert.deepEqual(mc.registeredNames(), []);
  });

  test('an abort before the promise settles rejects it with the reason and removes the tool', async () => {
    const mc = createFakeModelContext();
    const controller = new AbortController();
    const reason = new Error('StrictMode cleanup');
    const p = mc.registerTool(tool('strict'), { signal: controller.signal });
    controller.abort(reason);
    await assert.rejects(p, (err) => err === reason);
    assert.deepEqual(mc.registeredNames(), []);
    // StrictMode's second mount registers the same name again: no duplicate.
    await mc.registerTool(tool('strict'));
    assert.deepEqual(mc.registeredNames(), ['strict']);
  });

  test('aborting the signal later unregisters the tool and dispatches toolchange', async () => {
    const mc = createFakeModelContext();
    const controller = new AbortController();
    await mc.registerTool(tool('later'), { signal: controller.signal });
    const changed = mc.waitForToolChange();
    controller.abort();
    assert.deepEqual(mc.registeredNames(), [], 'removed at once');
    await changed;
    assert.deepEqual(await mc.getTools(), []);
    // the name is free again
    await mc.registerTool(tool('later'));
  });

  test('stores the schemas stringified: later mutation of the given object has no effect', async () => {
    const mc = createFakeModelContext();
    const inputSchema = { type: 'object', properties: { q: { type: 'string' } } };
    const outputSchema = { type: 'object' };
    const descriptor = tool('s', { inputSchema, outputSchema });
    await mc.registerTool(descriptor);
    inputSchema.properties.q.type = 'number';
    outputSchema.type = 'array';
    descriptor.description = 'changed';
    const [info] = await mc.getTools();
    assert.deepEqual(info.inputSchema, { type: 'object', properties: { q: { type: 'string' } } });
    assert.deepEqual(info.outputSchema, { type: 'object' });
    assert.equal(info.description, 'The s tool');
  });
});

describe('getTools', () => {
  test('returns parsed, independent copies sorted by name in code-unit order', async () => {
    const mc = createFakeModelContext({ origin: 'https://shop.example' });
    for (const name of ['b', 'a', 'Z', '_x', 'B', '9']) await mc.registerTool(tool(name));
    const tools = await mc.getTools();
    assert.deepEqual(tools.map((t) => t.name), ['9', 'B', 'Z', '_x', 'a', 'b']);
    assert.deepEqual(mc.registeredNames(), ['9', 'B', 'Z', '_x', 'a', 'b']);
    assert.deepEqual(tools[0], { name: '9', title: '', description: 'The 9 tool', origin: 'https://shop.example' });
  });

  test('title defaults to "", inputSchema and annotations are absent unless given', async () => {
    const mc = createFakeModelContext();
    await mc.registerTool(tool('plain'));
    await mc.registerTool(tool('rich', {
      title: 'Rich tool',
      inputSchema: { type: 'object' },
      annotations: { readOnlyHint: true, destructiveHint: true },
    }));
    const [plain, rich] = await mc.getTools();
    assert.equal(plain.title, '');
    assert.ok(!('inputSchema' in plain));
    assert.ok(!('outputSchema' in plain));
    assert.ok(!('annotations' in plain));
    assert.equal(typeof plain.origin, 'string');
    assert.ok(!('execute' in plain), 'execute is not exposed');
    assert.equal(rich.title, 'Rich tool');
    assert.deepEqual(rich.inputSchema, { type: 'object' });
    // the draft's members, defaulting to false; others dropped (as in Chrome 156)
    assert.deepEqual(rich.annotations, {
      consequentialHint: false,
      debugging: false,
      readOnlyHint: true,
      untrustedContentHint: false,
    });
  });

  test('each call returns fresh copies', async () => {
    const mc = createFakeModelContext();
    await mc.registerTool(tool('t', { inputSchema: { type: 'object', required: ['a'] } }));
    const [first] = await mc.getTools();
    first.inputSchema.required.push('b');
    first.name = 'mutated';
    const [second] = await mc.getTools();
    assert.deepEqual(second.inputSchema, { type: 'object', required: ['a'] });
    assert.equal(second.name, 't');
    assert.notEqual(first.inputSchema, second.inputSchema);
  });

  test('origin defaults to a real origin string', async () => {
    const mc = createFakeModelContext();
    await mc.registerTool(tool('o'));
    const [info] = await mc.getTools();
    assert.equal(info.origin, mc.origin);
    assert.doesNotThrow(() => new URL(info.origin));
    assert.notEqual(info.origin, 'null');
  });
});

describe('executeTool', () => {
  test('JSON round-trips the input, passes {signal}, fires toolactivated first, returns JSON text', async () => {
    const mc = createFakeModelContext();
    const given = { a: 1, when: new Date(0), skip: undefined, nested: { list: [1, 2] } };
    const seen = [];
    await mc.registerTool(tool('echo', {
      execute: (input, options) => {
        seen.push('execute');
        assert.notEqual(input, given, 'the tool gets a copy');
        assert.ok(options.signal instanceof AbortSignal);
        assert.equal(options.signal.aborted, false);
        return { got: input };
      },
    }));
    mc.addEventListener('toolactivated', (ev) => {
      assert.ok(ev instanceof ToolActivatedEvent);
      assert.ok(ev instanceof Event);
      seen.push(`toolactivated:${ev.toolName}`);
    });
    const [info] = await mc.getTools();
    const text = await mc.executeTool(info, given);
    assert.equal(typeof text, 'string');
    assert.equal(text, '{"got":{"a":1,"when":"1970-01-01T00:00:00.000Z","nested":{"list":[1,2]}}}');
    assert.deepEqual(seen, ['toolactivated:echo', 'execute']);
  });

  test('input defaults to {} and may be a JSON string (Chrome <= 154)', async () => {
    const mc = createFakeModelContext();
    await mc.registerTool(tool('echo', { execute: (input) => input }));
    assert.equal(await mc.executeTool({ name: 'echo' }), '{}');
    assert.equal(await mc.executeTool({ name: 'echo' }, '{"q":"mug"}'), '{"q":"mug"}');
  });

  test('an input that is not a JSON object fails', async () => {
    const mc = createFakeModelContext();
    let calls = 0;
    await mc.registerTool(tool('t', { execute: () => { calls += 1; return 1; } }));
    await rejectsType(mc.executeTool({ name: 't' }, null));
    await rejectsType(mc.executeTool({ name: 't' }, 5));
    const cyclic = {};
    cyclic.self = cyclic;
    await rejectsType(mc.executeTool({ name: 't' }, cyclic));
    await rejectsDOM(mc.executeTool({ name: 't' }, '[1,2]'), 'UnknownError');
    await rejectsDOM(mc.executeTool({ name: 't' }, 'not json'), 'UnknownError');
    await rejectsDOM(mc.executeTool({ name: 't' }, '"text"'), 'UnknownError');
    assert.equal(calls, 0);
  });

  test('serializes results; undefined and unserializable results reject with UnknownError', async () => {
    const mc = createFakeModelContext();
    const cyclic = {};
    cyclic.self = cyclic;
    const results = { text: 'hi', nul: null, num: 3, undef: undefined, big: 10n, cyc: cyclic, fn: () => 1 };
    for (const [name, value] of Object.entries(results)) {
      await mc.registerTool(tool(name, { execute: async () => value }));
    }
    assert.equal(await mc.executeTool({ name: 'text' }), '"hi"');
    assert.equal(await mc.executeTool({ name: 'nul' }), 'null');
    assert.equal(await mc.executeTool({ name: 'num' }), '3');
    await rejectsDOM(mc.executeTool({ name: 'undef' }), 'UnknownError');
    await rejectsDOM(mc.executeTool({ name: 'big' }), 'UnknownError');
    await rejectsDOM(mc.executeTool({ name: 'cyc' }), 'UnknownError');
    await rejectsDOM(mc.executeTool({ name: 'fn' }), 'UnknownError');
  });

  test('a throwing or rejecting tool rejects with UnknownError (not its own error)', async () => {
    const mc = createFakeModelContext();
    await mc.registerTool(tool('throws', { execute: () => { throw new Error('secret detail'); } }));
    await mc.registerTool(tool('rejects', { execute: async () => { throw new RangeError('x'); } }));
    await rejectsDOM(mc.executeTool({ name: 'throws' }), 'UnknownError');
    await rejectsDOM(mc.executeTool({ name: 'rejects' }), 'UnknownError');
    await assert.rejects(mc.executeTool({ name: 'throws' }), (err) => !String(err.message).includes('secret detail'));
  });

  test('an unknown tool rejects with UnknownError and fires no toolactivated', async () => {
    const mc = createFakeModelContext();
    let activated = 0;
    mc.addEventListener('toolactivated', () => { activated += 1; });
    await rejectsDOM(mc.executeTool({ name: 'missing' }, {}), 'UnknownError');
    await mc.registerTool(tool('present'));
    await rejectsDOM(mc.executeTool({ name: 'present', origin: 'https://elsewhere.example' }), 'UnknownError');
    assert.equal(activated, 0);
  });

  test('an already aborted caller signal rejects with its reason; the tool never runs', async () => {
    const mc = createFakeModelContext();
    let calls = 0;
    await mc.registerTool(tool('t', { execute: () => { calls += 1; return 1; } }));
    const reason = new Error('cancelled early');
    await assert.rejects(mc.executeTool({ name: 't' }, {}, { signal: AbortSignal.abort(reason) }), (err) => err === reason);
    await tick();
    assert.equal(calls, 0);
  });

  test('a caller abort rejects with the reason, aborts the per-call signal and fires toolcancel', async () => {
    const mc = createFakeModelContext();
    let toolSignal;
    let finish;
    await mc.registerTool(tool('slow', {
      execute: (_input, { signal }) => {
        toolSignal = signal;
        return new Promise((resolve) => { finish = resolve; });
      },
    }));
    const cancels = [];
    mc.addEventListener('toolcancel', (ev) => {
      assert.ok(ev instanceof ToolCancelEvent);
      cancels.push(ev.toolName);
    });
    const controller = new AbortController();
    const reason = new Error('user pressed stop');
    const activated = new Promise((resolve) => mc.addEventListener('toolactivated', resolve, { once: true }));
    const p = mc.executeTool({ name: 'slow' }, {}, { signal: controller.signal });
    await activated;
    assert.equal(toolSignal.aborted, false);
    controller.abort(reason);
    await assert.rejects(p, (err) => err === reason);
    assert.equal(toolSignal.aborted, true);
    assert.ok(toolSignal.reason instanceof DOMException);
    assert.equal(toolSignal.reason.name, 'AbortError');
    assert.deepEqual(cancels, ['slow']);
    finish({ late: true }); // a late result is ignored
    await tick();
  });

  test('unregistering does not cancel a running call', async () => {
    const mc = createFakeModelContext();
    const registration = new AbortController();
    let toolSignal;
    let finish;
    await mc.registerTool(tool('long', {
      execute: (_input, { signal }) => {
        toolSignal = signal;
        return new Promise((resolve) => { finish = resolve; });
      },
    }), { signal: registration.signal });
    const activated = new Promise((resolve) => mc.addEventListener('toolactivated', resolve, { once: true }));
    const p = mc.executeTool({ name: 'long' });
    await activated;
    registration.abort();
    assert.deepEqual(mc.registeredNames(), []);
    await tick();
    assert.equal(toolSignal.aborted, false);
    finish({ done: true });
    assert.equal(await p, '{"done":true}');
    // after the unregistration, new calls fail
    await rejectsDOM(mc.executeTool({ name: 'long' }), 'UnknownError');
  });

  test('a non-object tool argument is a TypeError', async () => {
    const mc = createFakeModelContext();
    await rejectsType(mc.executeTool('name-as-string', {}));
    await rejectsType(mc.executeTool({}, {}));
  });
});

describe('event handler properties', () => {
  test('ontoolchange / ontoolactivated / ontoolcancel are called', async () => {
    const mc = createFakeModelContext();
    const seen = [];
    mc.ontoolchange = (ev) => seen.push(ev.type);
    mc.ontoolactivated = (ev) => seen.push(`${ev.type}:${ev.toolName}`);
    mc.ontoolcancel = (ev) => seen.push(`${ev.type}:${ev.toolName}`);
    let release;
    await mc.registerTool(tool('h', { execute: () => new Promise((resolve) => { release = resolve; }) }));
    const controller = new AbortController();
    const p = mc.executeTool({ name: 'h' }, {}, { signal: controller.signal });
    await tick();
    await tick();
    controller.abort(new Error('stop'));
    await assert.rejects(p, /stop/);
    release(1);
    assert.deepEqual(seen, ['toolchange', 'toolactivated:h', 'toolcancel:h']);
  });
});

describe('helpers', () => {
  test('listTools() is getTools()', async () => {
    const mc = createFakeModelContext();
    await mc.registerTool(tool('x', { inputSchema: { type: 'object' } }));
    assert.deepEqual(await mc.listTools(), await mc.getTools());
  });

  test('callTool() finds, executes and JSON-parses; unknown names reject with UnknownError', async () => {
    const mc = createFakeModelContext();
    await mc.registerTool(tool('add', { execute: ({ a, b }) => ({ sum: a + b }) }));
    assert.deepEqual(await mc.callTool('add', { a: 2, b: 3 }), { sum: 5 });
    await rejectsDOM(mc.callTool('nope'), 'UnknownError');
    const reason = new Error('abort');
    await assert.rejects(mc.callTool('add', { a: 1, b: 1 }, { signal: AbortSignal.abort(reason) }), (err) => err === reason);
  });

  test('waitForToolChange() resolves on registration and on unregistration', async () => {
    const mc = createFakeModelContext();
    const first = mc.waitForToolChange();
    mc.registerTool(tool('w'));
    await first;
    assert.deepEqual(mc.registeredNames(), ['w']);
    const second = mc.waitForToolChange();
    mc.abortRegistration('w');
    await second;
    assert.deepEqual(mc.registeredNames(), []);
  });

  test('abortRegistration() removes a tool, fires toolchange, and rejects a pending registration with AbortError', async () => {
    const mc = createFakeModelContext();
    const p = mc.registerTool(tool('pending'));
    mc.abortRegistration('pending');
    await rejectsDOM(p, 'AbortError');
    assert.deepEqual(mc.registeredNames(), []);
    await mc.registerTool(tool('done'));
    let changes = 0;
    mc.addEventListener('toolchange', () => { changes += 1; });
    mc.abortRegistration('done');
    mc.abortRegistration('done'); // second time: nothing left
    mc.abortRegistration('never-registered');
    await tick();
    assert.equal(changes, 1);
  });

  test('createFakeModelContext() returns an EventTarget FakeModelContext', () => {
    const mc = createFakeModelContext({ origin: 'https://a.example' });
    assert.ok(mc instanceof FakeModelContext);
    assert.ok(mc instanceof EventTarget);
    assert.equal(mc.origin, 'https://a.example');
    assert.deepEqual(mc.registeredNames(), []);
  });
});

describe('installFakeModelContext', () => {
  test('creates document when there is none, and removes it again', () => {
    assert.equal(globalThis.document, undefined, 'Node has no document');
    const { modelContext, uninstall } = installFakeModelContext();
    assert.ok(modelContext instanceof FakeModelContext);
    assert.equal(globalThis.document.modelContext, modelContext);
    uninstall();
    assert.equal(globalThis.document, undefined);
    assert.ok(!('document' in globalThis));
    uninstall(); // idempotent
  });

  test('keeps an existing document and restores its previous modelContext', () => {
    const previous = { previous: true };
    const doc = { modelContext: previous, title: 'page' };
    globalThis.document = doc;
    try {
      const installed = installFakeModelContext();
      assert.equal(globalThis.document, doc);
      assert.equal(doc.modelContext, installed.modelContext);
      installed.uninstall();
      assert.equal(globalThis.document, doc);
      assert.equal(doc.modelContext, previous);

      delete doc.modelContext;
      const again = installFakeModelContext();
      assert.equal(doc.modelContext, again.modelContext);
      again.uninstall();
      assert.ok(!('modelContext' in doc));
    } finally {
      delete globalThis.document;
    }
  });

  test('each install gives a fresh, empty fake', async () => {
    const one = installFakeModelContext();
    await one.modelContext.registerTool(tool('t'));
    one.uninstall();
    const two = installFakeModelContext();
    try {
      assert.notEqual(two.modelContext, one.modelContext);
      assert.deepEqual(await globalThis.document.modelContext.getTools(), []);
    } finally {
      two.uninstall();
    }
  });
});

describe('the other shapes (options)', () => {
  const tool = (name, extra = {}) => ({ name, description: 'd', execute: (input, second) => ({ input, second: second === undefined ? 'none' : Object.keys(second) }), ...extra });

  test("shape: 'firefox': a synchronous registerTool answering undefined, throwing; no signal; unregisterTool; execute(input, client)", async () => {
    const mc = createFakeModelContext({ shape: 'firefox' });
    const controller = new AbortController();
    assert.equal(mc.registerTool(tool('a'), { signal: controller.signal }), undefined);
    assert.throws(() => mc.registerTool(tool('a')), (err) => err.name === 'InvalidStateError', 'a duplicate throws at once');
    controller.abort();
    await tick();
    assert.deepEqual(mc.registeredNames(), ['a'], 'the signal is never read');
    assert.deepEqual(await mc.callTool('a', { x: 1 }), { input: { x: 1 }, second: ['requestUserInteraction'] });
    assert.equal(mc.unregisterTool('a'), undefined);
    assert.deepEqual(mc.registeredNames(), []);
    assert.throws(() => mc.unregisterTool('a'), (err) => err.name === 'InvalidStateError');
    const { modelContext, uninstall } = installFakeModelContext({ shape: 'firefox' });
    assert.equal(globalThis.navigator.modelContext, modelContext, 'installed as navigator.modelContext');
    assert.equal(globalThis.document?.modelContext, undefined);
    uninstall();
    assert.equal(globalThis.navigator?.modelContext, undefined);
  });

  test('executeArity: 1 calls execute(input) only', async () => {
    const mc = createFakeModelContext({ executeArity: 1 });
    await mc.registerTool(tool('a'));
    assert.deepEqual(await mc.callTool('a', {}), { input: {}, second: 'none' });
  });

  test("toolObjects: getTools() answers Chrome 160's Tool objects: getters, null members, nothing to spread or stringify", async () => {
    const mc = createFakeModelContext({ toolObjects: true });
    await mc.registerTool(tool('a', { inputSchema: { type: 'object' } }));
    const [listed] = await mc.getTools();
    assert.equal(listed.name, 'a');
    assert.deepEqual(listed.inputSchema, { type: 'object' });
    assert.equal(listed.outputSchema, null);
    assert.equal(listed.annotations, null);
    assert.deepEqual({ ...listed }, {});
    assert.equal(JSON.stringify(listed), '{}');
    assert.equal(listed.source, globalThis);
    assert.deepEqual(await mc.callTool('a', {}), { input: {}, second: ['signal'] }, 'executeTool takes a Tool object');
  });

  test('refuseSchemaKeywords: registerTool rejects a keyword where it is one, not a property of that name', async () => {
    const mc = createFakeModelContext({ refuseSchemaKeywords: true });
    await assert.rejects(mc.registerTool(tool('a', { inputSchema: { properties: { when: { type: 'string', format: 'date' } } } })), (err) => err instanceof TypeError && /"format"/.test(err.message));
    await assert.rejects(mc.registerTool(tool('b', { inputSchema: { $defs: {}, type: 'object' } })), TypeError);
    await mc.registerTool(tool('c', { inputSchema: { properties: { format: { type: 'string' } } } }));
    assert.deepEqual(mc.registeredNames(), ['c']);
  });
});
