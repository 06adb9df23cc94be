// A resource read's URI (issues 29 and 30; docs/resources-and-prompts.md, "URIs"), through the
// built package: one canonical URI is what lookup, template variables, hooks, policy, grants,
// telemetry, the approver and the read function see; a URI that can be read more than one way is
// refused as data before anything runs; and no URI at the length cap makes a template or a rule
// take more than linear time (outcomes are asserted here; the time is measured in bench/).
import { test, describe, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { createWarden, ConfigurationError, RegistrationError, readResource, webmcpResource } from 'webmcp-warden';

let w;
afterEach(() => {
  w?.dispose();
  w = undefined;
});

/**
 * A page serving every file (`file:///{+path}`, or `uri`) under `policy.resources`, recording
 * what each stage saw: the read function's URL and variables, the hooks' URIs, the approver's
 * names and the telemetry events.
 */
async function page({ resources = { deny: ['file:///secrets/{+rest}'], allow: ['*'] }, uri = 'file:///{+path}', hooks = [], onAsk } = {}) {
  const seen = { reads: [], hooks: [], asked: [], events: [] };
  w = createWarden({
    policy: { resources },
    // Telemetry names the URI read only when payloads are captured (docs/behaviour.md, Telemetry).
    capturePayloads: true,
    telemetry: (event) => seen.events.push(event),
    hooks: { resourceRead: [{ id: 'seen', run: (ctx) => void seen.hooks.push(ctx.uri) }, ...hooks] },
    onAsk: (call) => (seen.asked.push(call.name), onAsk?.(call) ?? { allow: 'once' }),
  });
  const resource = webmcpResource(
    (url, params) => {
      assert.ok(url instanceof URL);
      seen.reads.push({ href: url.href, params });
      return 'content of ' + url.pathname;
    },
    { uri, name: 'files', client: w },
  );
  await resource.register();
  return { resource, seen, read: (target) => readResource(target, { client: w }) };
}

/** The `uri` of the read's `resource_read.stop` event. */
const stopUri = (seen) => seen.events.filter((event) => event.name === 'resource_read.stop').map((event) => event.uri);

describe('issue 30: a read is checked as it is used', () => {
  // Each reaches /secrets/key; WHATWG's URL removes dot segments (`%2e` is a dot), turns `\`
  // into `/` and drops `localhost`; the canonical form also decodes escapes of unreserved
  // characters in either case, as a reader that decodes would.
  const spellings = [
    'file:///public/../secrets/key',
    'file:///public/%2e%2e/secrets/key',
    'file:///./secrets/key',
    'file:///secrets\\key',
    'file:///public/%2E%2e/secrets/key',
    'file:///public/.%2E/secrets/key',
    'file:///public/%2e./secrets/key',
    'file:///public\\..\\secrets/key',
    'file:///public/..\\secrets\\key',
    'file:///public/../../../secrets/key',
    'file:///%73ecrets/key',
    'file:///%73ECRETS/../secrets/%6b%65%79',
    'file://localhost/secrets/key',
    'FILE:///secrets/key',
  ];
  for (const spelling of spellings) {
    test(`${spelling}: denied as file:///secrets/key, by a template rule; the read never runs`, async () => {
      const { seen, read } = await page();
      const outcome = await read(spelling);
      assert.equal(outcome.ok, false);
      assert.equal(outcome.error.kind, 'denied');
      assert.deepEqual(seen.hooks, ['file:///secrets/key'], 'the hook saw the canonical URI');
      assert.deepEqual(stopUri(seen), ['file:///secrets/key'], "telemetry's URI");
      assert.deepEqual(seen.reads, []);
    });
  }

  test('a deny rule on a glob and a hook matched by one see the canonical URI too', async () => {
    const matched = [];
    const { seen, read } = await page({
      resources: { deny: ['file:///secrets/*'], allow: ['*'] },
      hooks: [{ id: 'secrets', match: 'file:///secrets/*', run: (ctx) => void matched.push(ctx.uri) }],
    });
    assert.equal((await read('file:///public/%2E%2E/secrets/key')).error.kind, 'denied');
    assert.equal((await read('file:///public/key')).ok, true);
    assert.equal((await read('file:///public/secrets/key')).ok, true);
    assert.deepEqual(matched, ['file:///secrets/key'], "the hook's match ran for the traversal only");
    assert.deepEqual(
      seen.reads.map((r) => r.href),
      ['file:///public/key', 'file:///public/secrets/key'],
    );
  });

  test('the read function, its variables, the hooks, the approver, the grant, telemetry and the contents get one string', async () => {
    const { seen, read } = await page({ resources: { ask: ['file:///public/{+p}'], allow: ['*'] }, onAsk: () => ({ allow: 'always' }) });
    const first = await read('file:///public/./%61%2e%74xt');
    assert.equal(first.ok, true);
    assert.deepEqual(seen.reads, [{ href: 'file:///public/a.txt', params: { path: 'public/a.txt' } }]);
    assert.deepEqual(seen.hooks, ['file:///public/a.txt']);
    assert.deepEqual(seen.asked, ['file:///public/a.txt']);
    assert.deepEqual(stopUri(seen), ['file:///public/a.txt']);
    assert.equal(first.result.contents[0].uri, 'file:///public/a.txt', "the answer's contents name it");
    // Another spelling of the same URI: the grant (keyed by the canonical URI) answers, no ask.
    assert.equal((await read('file:///public/b/../a.txt')).ok, true);
    assert.deepEqual(seen.asked, ['file:///public/a.txt']);
    assert.deepEqual((await w.listGrants()).map((grant) => grant.tool), ['file:///public/a.txt']);
  });

  test("a `;` parameter is part of its segment, for the rules and the read alike", async () => {
    const { seen, read } = await page();
    assert.equal((await read('file:///secrets;v=1/key')).ok, true, 'not under file:///secrets/');
    assert.equal((await read('file:///public;v=1/../secrets/key')).error.kind, 'denied', 'a dot segment removes a segment with its parameters');
    assert.deepEqual(seen.hooks, ['file:///secrets;v=1/key', 'file:///secrets/key']);
    assert.deepEqual(seen.reads, [{ href: 'file:///secrets;v=1/key', params: { path: 'secrets;v=1/key' } }]);
  });

  test('a template variable never holds a query or a fragment; a rule variable covers them', async () => {
    const { seen, read } = await page();
    for (const uri of ['file:///secrets/key?v=1', 'file:///public/a#/../../secrets/key', 'file:///public?/../secrets/key']) {
      assert.equal((await read(uri)).error.reason, 'unknown_resource', uri);
    }
    assert.deepEqual(seen.reads, []);
    const withQuery = await page({ uri: 'file:///{+path}?{q}' });
    assert.equal((await withQuery.read('file:///secrets/key?v=1')).error.kind, 'denied', "the rule's {+rest} crosses the query");
    assert.equal((await withQuery.read('file:///public/a?v=%2f..%2F#x')).error.reason, 'unknown_resource', 'no variable holds a fragment');
    assert.equal((await withQuery.read('file:///public/a?v=%2f..%2F%41')).ok, true);
    assert.deepEqual(withQuery.seen.reads, [{ href: 'file:///public/a?v=%2F..%2FA', params: { path: 'public/a', q: 'v=%2F..%2FA' } }], 'escapes in the query are normalized, not decoded');
  });

  test("a template's variables are read from the canonical URI; where several splits fit, earlier variables take the longest", async () => {
    w = createWarden();
    const reads = [];
    const profile = webmcpResource((url, params) => (reads.push(params), 'x'), { uri: 'user://{id}/profile', name: 'profile', client: w });
    const pair = webmcpResource((url, params) => (reads.push(params), 'x'), { uri: 'x://{+a}/{+b}/end', name: 'pair', client: w });
    await profile.read('user://%34%32/profile');
    await pair.read('x://p/q/r/end');
    await pair.read('x://p/./q/r/../end');
    assert.deepEqual(reads, [{ id: '42' }, { a: 'p/q', b: 'r' }, { a: 'p', b: 'q' }]);
  });
});

describe('URIs that can be read more than one way are refused as data, before anything runs', () => {
  const refusals = [
    ['file:///public/..%2Fsecrets/key', "an encoded '/'"],
    ['file:///public/..%2fsecrets/key', "an encoded '/'"],
    ['file:///public/..%5Csecrets%5ckey', "an encoded '/' or '\\'"],
    ['file:////secrets/key', 'an empty path segment'],
    ['file:///secrets//key', 'an empty path segment'],
    ['file:///secrets/\tkey', 'no control characters (found U+0009 at character 16)'],
    ['file:///sec\nrets/key', 'no control characters (found U+000A'],
    ['file:///key\u0000', 'no control characters (found U+0000'],
    ['file:///key\u0085', 'no control characters (found U+0085'],
    ['file:///%00key', 'an encoded control character'],
    ['http://user:pw@internal/secrets', 'a user name or password'],
    ['x:public/../secrets', "a '.' or '..' segment"],
    ['x:public/%2e%2E/secrets', "a '.' or '..' segment"],
    ['x://../secrets', "'.' or '..' as its host"],
    ['x://h/a\\b', "a '\\' before its query"],
    ['file:///100%', "a '%' that does not start an escape"],
    ['file:///%zz', "a '%' that does not start an escape"],
    ['secrets/key', 'is not a URI'],
  ];
  for (const [uri, why] of refusals) {
    test(JSON.stringify(uri), async () => {
      const { seen, read } = await page();
      const outcome = await read(uri);
      assert.equal(outcome.ok, false);
      assert.equal(outcome.error.kind, 'validation');
      assert.equal(outcome.error.reason, 'invalid_uri');
      assert.ok(outcome.error.message.includes(why), outcome.error.message);
      assert.equal(outcome.text, 'Error: ' + outcome.error.message);
      assert.deepEqual([seen.hooks, seen.reads, seen.events], [[], [], []], 'no hook, no read, no event');
    });
  }

  test('at the length cap: longer as sent, or longer in canonical form', async () => {
    const { seen, read } = await page();
    const sent = await read('file:///' + 'a'.repeat(65_536));
    assert.match(sent.error.message, /^a URI of 65544 characters is longer than 65536$/);
    const grown = await read('file:///' + 'é'.repeat(20_000));
    assert.equal(grown.error.reason, 'invalid_uri');
    assert.match(grown.error.message, /characters \(in canonical form\) is longer than 65536/);
    assert.equal((await read('file:///' + 'a'.repeat(65_536 - 8))).ok, true, 'exactly at the cap');
    assert.equal(seen.reads.length, 1);
  });

  test('resource.read and a URI that is not a string', async () => {
    const { resource, read } = await page({ uri: 'file:///public/{name}' });
    assert.equal((await resource.read('file:///public/../secrets')).error.message, '"file:///secrets" is not the URI of resource "files" (file:///public/{name})');
    assert.equal((await resource.read('file:///public/a%2Fb')).error.reason, 'invalid_uri');
    assert.equal((await read(42)).error.message, 'a resource URI is a string, not number');
  });
});

describe('resources and matchers are checked against the canonical form when they are made', () => {
  test('a resource of one URI is kept in canonical form, and found in any spelling', async () => {
    w = createWarden();
    const r = webmcpResource(() => 'home', { uri: 'HTTP://Example.COM:80/a/./b/%7euser', name: 'home', client: w });
    assert.equal(r.definition.uri, 'http://example.com/a/b/~user');
    await r.register();
    for (const spelling of ['http://example.com/a/b/~user', 'http://EXAMPLE.com/a/c/../b/%7Euser', 'http://example.com:80/a\\b\\~user']) {
      assert.equal((await readResource(spelling, { client: w })).ok, true, spelling);
    }
    const twin = webmcpResource(() => 'twin', { uri: 'http://example.com/a/b/~user', name: 'twin', client: w });
    await assert.rejects(twin.register(), (err) => err instanceof RegistrationError && err.code === 'duplicate_name');
    // An IDNA host is read in punycode; a non-special scheme's host keeps its case, as URL keeps it.
    const idna = webmcpResource(() => 'idna', { uri: 'http://ÉXAMPLE.com/a', name: 'idna', client: w });
    assert.equal(idna.definition.uri, 'http://xn--xample-9ua.com/a');
    await idna.register();
    assert.equal((await readResource('http://éxample.COM/a', { client: w })).ok, true);
    const opaque = webmcpResource(() => 'opaque', { uri: 'x://HOST/a', name: 'opaque', client: w });
    assert.equal(opaque.definition.uri, 'x://HOST/a');
    await opaque.register();
    assert.equal((await readResource('x://host/a', { client: w })).error.reason, 'unknown_resource');
  });

  test('a URI or template no read could reach is refused', () => {
    w = createWarden();
    const refuses = (uri, fragment) =>
      assert.throws(
        () => webmcpResource(() => 'x', { uri, name: 'n', client: w }),
        (err) => err instanceof ConfigurationError && err.code === 'invalid_uri' && err.path === 'uri' && err.message.includes(fragment),
        uri,
      );
    refuses('file:///a%2Fb', "an encoded '/'");
    refuses('file:////a', 'an empty path segment');
    refuses('file:///my docs/{name}', 'can never match: its instance "file:///my docs/x" reads as "file:///my%20docs/x"');
    refuses('HTTP://Example.com/{id}', 'reads as "http://example.com/x"');
    refuses('x://h/{a}/../b', 'reads as "x://h/b"');
    refuses('http://{user}@host/{p}', 'can never be read: its instance "http://x@host/x" holds a user name');
    refuses('x://h/{a}/{a}', 'the variable "a" twice');
    refuses('x://h/' + Array.from({ length: 17 }, (_, i) => `{v${i}}`).join('/'), 'more than 16 variables');
    refuses('x://h/%7e/{a}', 'can never match: URIs are compared in their canonical form');
    refuses('x://h/{a}}', "has a '}' without its '{'");
    // An instance that is no URI at all (a port variable): nothing to compare, accepted.
    assert.equal(webmcpResource(() => 'x', { uri: 'http://h:{port}/', name: 'port', client: w }).definition.uri, 'http://h:{port}/');
  });

  test('a hook or policy matcher whose text no canonical URI holds is refused: it could never match', () => {
    w = createWarden();
    assert.throws(() => w.configure({ policy: { resources: { deny: ['docs://é/*'] } } }), (err) => err instanceof ConfigurationError && err.code === 'invalid_matcher' && err.message.includes('can never match'));
    assert.throws(() => w.configure({ policy: { resources: { deny: ['docs://a%2fb'] } } }), (err) => err.code === 'invalid_matcher');
    assert.throws(() => w.configure({ hooks: { resourceRead: [{ match: 'docs://%7Euser/*', run: () => {} }] } }), (err) => err.code === 'invalid_matcher');
    w.configure({ policy: { resources: { deny: ['docs://%C3%A9/*', 'docs://a%2Fb'] } } });
  });
});

describe('issue 29: nothing an agent sends may freeze the page', () => {
  const CAP = 65_536;
  /** `prefix`, then `unit` as often as fits, then `suffix`: a URI of at most CAP characters. */
  const fill = (prefix, unit, suffix) => prefix + unit.repeat(Math.floor((CAP - prefix.length - suffix.length) / unit.length)) + suffix;
  const cases = [
    // [template, URI, whether it is an instance]: URIs that start and end as the template does,
    // so that only the whole search can tell.
    ['x://{+a}/{+b}/end', fill('x://', 'a', 'end'), false],
    ['x://{+a}/{+b}/end', fill('x://', 'a/', 'end'), true],
    ['x://{+a}/{+b}/{+c}/{+d}/{+e}/end', fill('x://', 'a', '/a/end'), false],
    ['x://{+a}/{+b}/{+c}/{+d}/{+e}/end', fill('x://h', '/a', '/end'), true],
    ['x://{a}{b}{c}{d}{e}{f}{g}{h}!', fill('x://', 'a', '/!'), false],
    ['x://{a}{b}{c}{d}{e}{f}{g}{h}!', fill('x://', 'a', '!'), true],
    ['file:///{+p}a{+q}a{+r}ab', fill('file:///', 'b', 'aab'), false],
    ['file:///{+p}a{+q}a{+r}ab', fill('file:///', 'a', 'b'), true],
  ];
  for (const [template, uri, instance] of cases) {
    test(`${template} against ${uri.length} characters: ${instance ? 'read' : 'no such resource'}`, async () => {
      assert.ok(uri.length <= CAP);
      // The same shape as a policy rule, matched against the same URI.
      const { seen, read } = await page({ uri: template, resources: { deny: [template.replace(/end$|ab$|!$/, 'zz')], allow: ['*'] } });
      const outcome = await read(uri);
      if (instance) {
        assert.equal(outcome.ok, true, JSON.stringify(outcome.error));
        assert.equal(seen.reads.length, 1);
      } else assert.equal(outcome.error.reason, 'unknown_resource');
    });
  }
});
