// Packaging test: `npm pack` the built package, install the tarball into an empty project
// outside the repository, and use it the way a user would (core entry, testing entry, react
// entry). Catches a wrong "files" list, a broken exports map, or a core that only works
// inside the repository.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgRoot = path.resolve(here, '..');
const repoRoot = path.resolve(pkgRoot, '..');

const temps = [];
function tempDir(prefix) {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  temps.push(dir);
  return dir;
}
after(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function run(cmd, args, cwd) {
  return execFileSync(cmd, args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, npm_config_update_notifier: 'false' },
  });
}

let project; // the consumer project with the tarball installed

test('npm pack produces a tarball that installs into an empty project', { timeout: 180_000 }, (t) => {
  assert.ok(
    existsSync(path.join(pkgRoot, 'dist', 'index.js')),
    'pkg-js/dist/index.js is missing: build the package first (npm run build / scripts/build.sh)',
  );
  const packDir = tempDir('warden-pack-');
  // --ignore-scripts: pack exactly what the build produced.
  const packed = JSON.parse(run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', packDir], pkgRoot));
  assert.equal(packed.length, 1);
  const info = packed[0];
  assert.equal(info.name, 'webmcp-warden');
  const tarball = path.join(packDir, info.filename);
  const size = statSync(tarball).size;
  const files = info.files.map((f) => f.path);
  t.diagnostic(`tarball ${info.filename}: ${size} bytes packed, ${info.unpackedSize} bytes unpacked, ${files.length} files`);
  console.log(`tarball ${info.filename}: ${size} bytes (${info.unpackedSize} unpacked, ${files.length} files)`);
  assert.ok(files.includes('package.json'));
  assert.ok(!files.some((f) => f.startsWith('test') || f.startsWith('src/') || f.includes('node_modules')),
    `only built files are shipped, got: ${files.join(', ')}`);

  project = tempDir('warden-consumer-');
  writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2));
  // The package has no runtime dependencies, so this needs no registry access. React (an
  // optional peer) is linked from the repository's node_modules when it is there, so the
  // react entry can be loaded too.
  const reactDir = path.join(repoRoot, 'node_modules', 'react');
  const installArgs = ['install', '--no-audit', '--no-fund', '--prefer-offline', tarball];
  if (existsSync(path.join(reactDir, 'package.json'))) installArgs.push(reactDir);
  run('npm', installArgs, project);
  assert.ok(existsSync(path.join(project, 'node_modules', 'webmcp-warden', 'package.json')));
});

test('the installed package governs a call through the fake modelContext', { timeout: 60_000 }, () => {
  assert.ok(project, 'the install step must have succeeded');
  writeFileSync(path.join(project, 'main.mjs'), `
import { webmcp } from 'webmcp-warden';
import { installFakeModelContext } from 'webmcp-warden/testing';
const { modelContext } = installFakeModelContext();
const t = webmcp(({ x }) => x * 2, {
  name: 'double',
  description: 'Doubles x',
  hooks: { before: [ctx => ({ input: { x: ctx.input.x + 1 } })] },
});
await t.register();
const [tool] = await modelContext.getTools();
const r = await modelContext.executeTool(tool, { x: 4 });
console.log(r);
`);
  const stdout = run(process.execPath, ['main.mjs'], project);
  assert.equal(stdout.trim(), JSON.stringify({ content: [{ type: 'text', text: '10' }] }));
});

test('the react entry resolves (and loads in Node where react is installed)', { timeout: 60_000 }, async () => {
  assert.ok(project, 'the install step must have succeeded');
  writeFileSync(path.join(project, 'react-check.mjs'), `
const url = import.meta.resolve('webmcp-warden/react');
let loaded = 'react not installed';
try { import.meta.resolve('react'); loaded = null; } catch {}
if (loaded === null) {
  const mod = await import('webmcp-warden/react');
  loaded = Object.keys(mod).sort().join(',');
}
console.log(JSON.stringify({ url, loaded }));
`);
  const out = JSON.parse(run(process.execPath, ['react-check.mjs'], project).trim());
  assert.ok(out.url.startsWith('file:'), out.url);
  assert.ok(out.url.includes('/node_modules/webmcp-warden/'), out.url);
  assert.ok(existsSync(fileURLToPath(out.url)), `${out.url} exists`);
  // Loading it in Node (no document: the SSR case) must not throw; it exports something.
  assert.notEqual(out.loaded, '', 'webmcp-warden/react has exports');
});
