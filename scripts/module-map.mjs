// The module map of both languages, computed from the code: which module imports which (TS
// imports of pkg-js/src, Rust `crate::` uses of src/). It checks the TS layers (each folder of
// pkg-js/src has a rank in LAYERS below, and a module imports only from its own folder or from a
// folder of a lower rank, lazily or not, types included), the shape of the tree (no folder of
// more than MAX_FILES files, no chain of imports longer than MAX_LEVELS modules), fails on an
// import cycle in either language, and keeps the map in ARCHITECTURE.md (between the
// `module-map` markers) equal to the code:
//
//   node scripts/module-map.mjs           check: exit 1 on a broken layer, a cycle or a stale map
//   node scripts/module-map.mjs --write   rewrite the map in ARCHITECTURE.md
import { readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function files(dir, ext) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path, ext));
    else if (name.endsWith(ext)) out.push(path);
  }
  return out.sort();
}

/**
 * The TS layers, lowest first: each folder of pkg-js/src (`.` for the package's entries at its
 * root) and what it holds. A module may import its own folder's modules and those of any folder
 * listed before its own, never one listed after (ARCHITECTURE.md, "The TypeScript layers").
 */
export const LAYERS = [
  ['types', 'types only: the public types, type inference, the policy\'s types, the types modules share'],
  ['util', 'leaves any layer may use: JS value checks, names, errors, frozen copies, Unicode, the JSON walk, canonical JSON, performing one step'],
  ['boundary', 'the wasm modules\' edge: the core and its trap guard, the wire format, the generated codes, the answers, handles, the embedded bytes and their decoder, the pattern modules'],
  ['client', 'a client and its state: the client object, registry, hook sets, policy and predicates, grants, telemetry, activity, approval requests'],
  ['runtime', "the browser's WebMCP runtime: finding it, the one adapter for its shapes, MCP-B, what browsers are sent"],
  ['validator', 'JSON Schema (the validator module: its loader, instance and chunk) and Standard Schema validation'],
  ['shape', 'shaping for a model (the shaping module and what crosses) and results normalized as MCP results'],
  ['pipeline', 'the lazily loaded pipeline chunk: one call, a listing, the browser registration, facts, diagnostics'],
  ['api', 'the public functions: createWarden, configure, webmcp, explain, lint, and the door to the pipeline chunk'],
  ['subjects', 'resources and prompts'],
  ['react', 'the React layer'],
  ['.', "the package's entries, one per export of package.json"],
];

/** The most files a folder of pkg-js/src may hold. */
export const MAX_FILES = 15;
/**
 * The most levels of imports inside pkg-js/src: a chain of static imports (type imports included)
 * may pass through one module more. A lazy import (`import()`) is a seam between chunks, not a
 * level: the chunk it loads starts a chain of its own.
 */
export const MAX_LEVELS = 10;

/** The folder of a TS module (`.` for the root). */
const folderOf = (name) => (name.includes('/') ? name.slice(0, name.lastIndexOf('/')) : '.');

/**
 * TS modules of pkg-js/src and the modules each imports: at run time (`import type` is erased),
 * or with `types: true` type-only imports too. Imports by `import()` (a lazily loaded chunk) are
 * listed with `lazy: true`: the map shows them marked, and the checks count them (a module that
 * loads another lazily still depends on it), as they count types (a loop of types is still two
 * modules that cannot be read one without the other).
 */
export function tsGraph({ types = false, lazy = false } = {}) {
  const src = join(root, 'pkg-js', 'src');
  const graph = new Map();
  for (const file of files(src, '.ts')) {
    const name = relative(src, file).replace(/\.ts$/, '');
    const text = readFileSync(file, 'utf8');
    const deps = new Set();
    const add = (specifier, mark = '') => {
      const target = join(dirname(file), specifier);
      const rel = relative(src, target).replace(/\.js$/, '');
      if (!rel.startsWith('..')) deps.add(rel + mark);
    };
    const pattern = /^\s*(import|export)\s+(type\s+)?(?:[^'"`;]*?\sfrom\s+)?['"](\.[^'"]+)['"]/gm;
    for (const match of text.matchAll(pattern)) {
      if (!types && match[2]) continue; // `import type` / `export type`: erased
      if (!types && /^\s*(import|export)\s*\{[^}]*\}/.test(match[0]) && /\{\s*(type\s+[^,}]+,?\s*)+\}/.test(match[0])) continue; // only type specifiers
      add(match[3]);
    }
    if (lazy) for (const match of text.matchAll(/\bimport\(\s*['"](\.[^'"]+)['"]\s*\)/g)) add(match[1], types ? '' : ' (lazy)');
    graph.set(name, [...deps].sort());
  }
  return graph;
}

/** What breaks the layers and the tree's shape (see {@link LAYERS}), as sentences. */
export function layerProblems() {
  const problems = [];
  const rank = new Map(LAYERS.map(([folder], index) => [folder, index]));
  const graph = tsGraph({ types: true, lazy: true });
  const counts = new Map();
  for (const [name, deps] of graph) {
    const folder = folderOf(name);
    counts.set(folder, (counts.get(folder) ?? 0) + 1);
    if (!rank.has(folder)) {
      problems.push(`pkg-js/src/${name}.ts is in a folder that is no layer: add "${folder}" to LAYERS in scripts/module-map.mjs`);
      continue;
    }
    for (const dep of deps) {
      const to = folderOf(dep);
      if (to !== folder && rank.has(to) && rank.get(to) > rank.get(folder)) problems.push(`${name} imports ${dep}: layer ${folder} may not import layer ${to}, which is above it`);
    }
  }
  for (const [folder, count] of counts) if (count > MAX_FILES) problems.push(`pkg-js/src/${folder} holds ${count} files (at most ${MAX_FILES})`);
  const { levels, chain } = importLevels(tsGraph({ types: true }));
  if (levels > MAX_LEVELS) problems.push(`a chain of imports is ${levels} levels deep (at most ${MAX_LEVELS}): ${chain.join(' → ')}`);
  return problems;
}

/** The longest chain of imports in an acyclic graph: how many levels deep it goes (imports, one fewer than its modules), and which. */
export function importLevels(graph) {
  const memo = new Map();
  const longest = (node, seen = new Set()) => {
    if (memo.has(node)) return memo.get(node);
    if (seen.has(node)) return [node]; // a cycle: reported apart
    seen.add(node);
    let best = [];
    for (const dep of graph.get(node) ?? []) {
      const chain = longest(dep, seen);
      if (chain.length > best.length) best = chain;
    }
    seen.delete(node);
    const chain = [node, ...best];
    memo.set(node, chain);
    return chain;
  };
  let chain = [];
  for (const node of graph.keys()) {
    const found = longest(node);
    if (found.length > chain.length) chain = found;
  }
  return { levels: chain.length - 1, chain };
}

/** Rust modules of src/ and the crate modules each uses (`crate::x::…`, `super::…` resolved). */
export function rustGraph() {
  const src = join(root, 'src');
  const graph = new Map();
  for (const file of files(src, '.rs')) {
    let name = relative(src, file).replace(/\.rs$/, '').replace(/\/mod$/, '');
    if (name === 'lib') continue;
    name = name.replaceAll('/', '::');
    // Comments name modules without using them; tests are not the module's dependencies.
    const text = readFileSync(file, 'utf8').replace(/#\[cfg\(test\)\][\s\S]*$/, '').replace(/\/\/.*$/gm, '');
    const deps = new Set();
    for (const match of text.matchAll(/crate::([a-z_]+)/g)) deps.add(match[1]);
    const top = name.split('::')[0];
    deps.delete(top);
    graph.set(name, [...deps].sort());
  }
  // Modules are compared at the top level: policy::rule → policy. `crate::object!` is a macro.
  const known = new Set([...graph.keys()].map((name) => name.split('::')[0]));
  const tops = new Map();
  for (const [name, deps] of graph) {
    const top = name.split('::')[0];
    const set = tops.get(top) ?? new Set();
    for (const dep of deps) if (dep !== top && known.has(dep)) set.add(dep);
    tops.set(top, set);
  }
  return new Map([...tops].map(([name, deps]) => [name, [...deps].sort()]).sort(([a], [b]) => a.localeCompare(b)));
}

/** The cycles of a graph, each as a list of modules (empty when there is none). */
export function cycles(graph) {
  const found = [];
  const state = new Map();
  const stack = [];
  const visit = (node) => {
    state.set(node, 'open');
    stack.push(node);
    for (const dep of graph.get(node) ?? []) {
      if (state.get(dep) === 'open') found.push([...stack.slice(stack.indexOf(dep)), dep]);
      else if (!state.has(dep)) visit(dep);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of graph.keys()) if (!state.has(node)) visit(node);
  return found;
}

function table(graph) {
  const rows = [...graph].map(([name, deps]) => `| \`${name}\` | ${deps.length ? deps.map((d) => `\`${d}\``).join(', ') : '—'} |`);
  return ['| module | imports |', '|---|---|', ...rows].join('\n');
}

/** The TS layers as a table: files, lines, and the layers each imports (types and lazy imports included). */
function layerTable() {
  const src = join(root, 'pkg-js', 'src');
  const graph = tsGraph({ types: true, lazy: true });
  const rows = LAYERS.map(([folder, what]) => {
    const names = [...graph.keys()].filter((name) => folderOf(name) === folder);
    const lines = names.reduce((sum, name) => sum + readFileSync(join(src, `${name}.ts`), 'utf8').split('\n').length - 1, 0);
    const uses = new Set(names.flatMap((name) => graph.get(name).map(folderOf)).filter((to) => to !== folder));
    const used = LAYERS.map(([layer]) => layer).filter((layer) => uses.has(layer));
    return `| \`${folder === '.' ? 'pkg-js/src/' : `${folder}/`}\` | ${what} | ${names.length} | ${lines} | ${used.length ? used.map((layer) => `\`${layer}\``).join(', ') : '—'} |`;
  });
  return ['| layer | what it holds | files | lines | imports from |', '|---|---|---:|---:|---|', ...rows.reverse()].join('\n');
}

/** The map as it belongs in ARCHITECTURE.md. */
export function renderMap() {
  return [
    '<!-- module-map: generated by `node scripts/module-map.mjs --write`; a test fails when it is stale -->',
    '',
    '**Rust core (`src/`)**, by top-level module, what each uses of the crate:',
    '',
    table(rustGraph()),
    '',
    '**TypeScript (`pkg-js/src/`)**, by layer, lowest first (`scripts/module-map.mjs`, `LAYERS`), each with the layers its modules import:',
    '',
    layerTable(),
    '',
    `The longest chain of static imports (type imports included; ${MAX_LEVELS} levels at most): ${importLevels(tsGraph({ types: true })).chain.map((name) => `\`${name}\``).join(' → ')}.`,
    '',
    'What each module imports at run time (type-only imports left out; `(lazy)`: by `import()`, a chunk of its own):',
    '',
    table(tsGraph({ lazy: true })),
    '',
    '<!-- /module-map -->',
  ].join('\n');
}

const START = '<!-- module-map:';
const END = '<!-- /module-map -->';

function main() {
  const problems = [];
  for (const [label, graph] of [['Rust', rustGraph()], ['TypeScript', tsGraph({ types: true, lazy: true })]]) {
    for (const cycle of cycles(graph)) problems.push(`${label} import cycle: ${cycle.join(' → ')}`);
  }
  problems.push(...layerProblems());
  const path = join(root, 'ARCHITECTURE.md');
  const doc = readFileSync(path, 'utf8');
  const start = doc.indexOf(START);
  const end = doc.indexOf(END);
  if (start < 0 || end < 0) problems.push('ARCHITECTURE.md has no module-map markers');
  const rendered = renderMap();
  if (process.argv.includes('--write') && start >= 0 && end >= 0) {
    writeFileSync(path, doc.slice(0, start) + rendered + doc.slice(end + END.length));
  } else if (start >= 0 && end >= 0 && doc.slice(start, end + END.length) !== rendered) {
    problems.push('the module map in ARCHITECTURE.md is stale: run `node scripts/module-map.mjs --write`');
  }
  for (const problem of problems) console.error(problem);
  process.exit(problems.length ? 1 : 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
