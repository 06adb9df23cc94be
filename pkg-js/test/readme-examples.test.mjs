// The READMEs' examples cannot rot: every ```ts / ```tsx (or ```typescript) block of README.md
// (the repository's) and pkg-js/README.md (the npm page) is type-checked with tsc --strict
// against the built package, under bundler and node16 resolution, and every block is run in
// Node against the built package.
//
// The rules for whoever writes the READMEs (nothing here knows today's blocks):
// - each block is a module of its own: it imports what it uses and declares the rest;
// - a ```ts block runs in Node with webmcp-warden/testing's fake `document.modelContext`
//   installed (so `register()` works) and must finish without throwing, within 20 s;
// - a ```tsx block (React) runs the same way in a DOM (jsdom) whose body holds
//   `<div id="root">`; once it finished, and its effects ran, what it rendered there is printed
//   and must not be empty;
// - `no-run` after the language (```ts no-run) type-checks a block without running it, for
//   code that only makes sense in a browser; blocks in other languages (```js, ```sh) are
//   neither checked nor run.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { transformSync } from 'esbuild';
import { runTsc } from '../test-support/tsc.mjs';

const pkgRoot = fileURLToPath(new URL('..', import.meta.url));
const repoRoot = path.join(pkgRoot, '..');
const READMES = [path.join(repoRoot, 'README.md'), path.join(pkgRoot, 'README.md')];

/** The checked blocks of a Markdown file: { file, line (of the first code line), lang, run, code }. */
export function extractBlocks(file) {
  const text = readFileSync(file, 'utf8');
  const blocks = [];
  const fence = /^(```+|~~~+)[ \t]*([A-Za-z]+)?([^\n]*)\n([\s\S]*?)^\1[ \t]*$/gm;
  for (const m of text.matchAll(fence)) {
    const lang = (m[2] ?? '').toLowerCase();
    if (!['ts', 'tsx', 'typescript'].includes(lang)) continue;
    const line = text.slice(0, m.index).split('\n').length + 1;
    const flags = m[3].trim().split(/[\s,]+/);
    blocks.push({ file, line, lang: lang === 'tsx' ? 'tsx' : 'ts', run: !flags.includes('no-run'), code: m[4] });
  }
  return blocks;
}

// The blocks are written under pkg-js/ (not the system's temp folder), so that 'webmcp-warden'
// resolves to the built package and zod, valibot and React's types to the repository's.
const work = mkdtempSync(path.join(pkgRoot, '.readme-check-'));
after(() => rmSync(work, { recursive: true, force: true }));

const blocks = READMES.filter(existsSync).flatMap(extractBlocks);
blocks.forEach((block, i) => {
  block.name = `block${i}.${block.lang}`;
  block.where = `${path.relative(repoRoot, block.file)}:${block.line}`;
  // `export {}` makes each block a module even when it imports nothing.
  writeFileSync(path.join(work, block.name), `${block.code}\nexport {};\n`);
});

test('the READMEs have TypeScript examples to check', () => {
  assert.ok(blocks.length >= 2, `found ${blocks.length} blocks in ${READMES.join(', ')}`);
});

for (const resolution of ['bundler', 'node16']) {
  test(`every TypeScript example type-checks (strict, moduleResolution ${resolution})`, { timeout: 120_000 }, async (t) => {
    assert.ok(existsSync(path.join(pkgRoot, 'dist', 'types', 'index.d.ts')), 'build the package first (node pkg-js/build.mjs)');
    const config = path.join(work, `tsconfig.${resolution}.json`);
    writeFileSync(
      config,
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: resolution === 'bundler' ? 'esnext' : 'node16',
          moduleResolution: resolution,
          lib: ['es2022', 'dom', 'dom.iterable'],
          jsx: 'react-jsx',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
          verbatimModuleSyntax: true,
        },
        files: blocks.map((b) => b.name),
      }),
    );
    // node16 reads the nearest package.json's "type": the blocks are ES modules.
    writeFileSync(path.join(work, 'package.json'), JSON.stringify({ type: 'module', private: true }));
    const started = Date.now();
    const { code, output } = await runTsc(['-p', config, '--pretty', 'false'], work);
    t.diagnostic(`${blocks.length} blocks, tsc: ${Date.now() - started} ms`);
    // Errors name the README line, not the temporary file.
    const located = output.replace(/^(block\d+\.tsx?)\((\d+),(\d+)\)/gm, (_, name, line) => {
      const block = blocks.find((b) => b.name === name);
      return block ? `${path.relative(repoRoot, block.file)}:${block.line + Number(line) - 1}` : name;
    });
    assert.equal(code, 0, `README examples do not type-check:\n${located}`);
  });
}

/** A DOM for a React block: jsdom's window as the page's globals, with `<div id="root">`. */
const DOM_PRELUDE = `import { JSDOM } from 'jsdom';
const { window } = new JSDOM('<!doctype html><html><body><div id="root"></div></body></html>', { url: 'http://127.0.0.1/' });
Object.assign(globalThis, { window, document: window.document, HTMLElement: window.HTMLElement, Node: window.Node, Element: window.Element, MutationObserver: window.MutationObserver, getComputedStyle: window.getComputedStyle.bind(window) });
Object.defineProperty(globalThis, 'navigator', { value: window.navigator, configurable: true });
`;
/** After a React block: let its effects run, print what it rendered, close the window. */
const DOM_EPILOGUE = `
await new Promise((resolve) => setTimeout(resolve, 300));
console.log('rendered: ' + document.getElementById('root').textContent);
window.close();
`;

for (const block of blocks.filter((b) => b.run)) {
  test(`the example at ${block.where} runs against the built package`, { timeout: 60_000 }, async () => {
    const tsx = block.lang === 'tsx';
    const js = transformSync(block.code, { loader: block.lang, format: 'esm', target: 'es2022', jsx: 'automatic', sourcefile: block.where }).code;
    const file = path.join(work, block.name.replace(/\.tsx?$/, '.mjs'));
    const prelude = `${tsx ? DOM_PRELUDE : ''}import { installFakeModelContext } from 'webmcp-warden/testing';\ninstallFakeModelContext();\n`;
    writeFileSync(file, `${prelude}${js}${tsx ? DOM_EPILOGUE : ''}`);
    const { code, stdout, stderr } = await new Promise((resolve) => {
      execFile(process.execPath, [file], { cwd: work, encoding: 'utf8', timeout: 20_000 }, (err, out, errOut) =>
        resolve({ code: err ? (err.code ?? err.signal ?? 1) : 0, stdout: out, stderr: errOut }),
      );
    });
    assert.equal(code, 0, `the example at ${block.where} failed:\n${stderr}\n${stdout}`);
    if (tsx) assert.match(stdout, /^rendered: \S/m, `the React example at ${block.where} rendered nothing:\n${stdout}`);
  });
}

