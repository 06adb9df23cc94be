// Every error class the package exports carries its own name as a literal, so a production
// build that renames classes (esbuild --minify turned `ConfigurationError` into `R`) still throws
// errors whose `.name` says what they are. A page's own subclass is named after itself.
import test from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { WardenError, ConfigurationError, RegistrationError, NotSupportedError, CallFailure, webmcp, createWarden } from 'webmcp-warden';

const CLASSES = { WardenError, ConfigurationError, RegistrationError, NotSupportedError, CallFailure };

test('each exported error class names its instances after itself', () => {
  for (const [name, Class] of Object.entries(CLASSES)) {
    const err = name === 'CallFailure' ? new Class('hook', 'hook_failed', 'msg') : new Class('some_code', 'msg');
    assert.equal(err.name, name);
    assert.ok(err instanceof WardenError && err instanceof Error);
    assert.match(String(err), new RegExp(`^${name}: msg$`));
    assert.match(err.stack, new RegExp(`^${name}: msg`), 'the stack trace names the class too');
  }
  assert.throws(() => webmcp(() => 1, { name: 'bad name!' }), { name: 'ConfigurationError', code: 'invalid_name' });
  const client = createWarden();
  client.dispose();
  assert.throws(() => client.configure({}), { name: 'ConfigurationError', code: 'disposed' });
});

test("a page's own subclass names itself, as with Error", () => {
  class PaymentError extends WardenError {
    static {
      this.prototype.name = 'PaymentError';
    }
  }
  assert.equal(new PaymentError('declined', 'no').name, 'PaymentError');
  class Unnamed extends ConfigurationError {}
  assert.equal(new Unnamed('x', 'y').name, 'ConfigurationError', 'inherited, as a subclass of Error inherits "Error"');
});

test('esbuild --minify keeps the names (the classes themselves are renamed)', async () => {
  const entry = fileURLToPath(new URL('../dist/index.js', import.meta.url));
  const source = `
    import { WardenError, ConfigurationError, RegistrationError, NotSupportedError, CallFailure, webmcp } from ${JSON.stringify(entry)};
    const names = [WardenError, ConfigurationError, RegistrationError, NotSupportedError, CallFailure].map((C) => [C.name, new C('a', 'b', 'c').name]);
    let thrown;
    try { webmcp(() => 1, { name: 'bad name!' }); } catch (err) { thrown = err.name; }
    console.log(JSON.stringify({ names, thrown }));
  `;
  const result = await build({ stdin: { contents: source, resolveDir: process.cwd(), loader: 'js' }, bundle: true, minify: true, format: 'esm', platform: 'node', write: false, logLevel: 'silent' });
  const dir = mkdtempSync(path.join(tmpdir(), 'warden-names-'));
  let out;
  try {
    const file = path.join(dir, 'bundle.mjs');
    writeFileSync(file, result.outputFiles[0].text);
    out = JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8' }).trim().split('\n').pop());
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const classNames = out.names.map(([className]) => className);
  assert.ok(classNames.some((name, i) => name !== Object.keys(CLASSES)[i]), `the build renamed no class (${classNames}): this test would prove nothing`);
  assert.deepEqual(out.names.map(([, name]) => name), Object.keys(CLASSES));
  assert.equal(out.thrown, 'ConfigurationError');
});
