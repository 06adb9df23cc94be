// Builds the npm package: the Rust core → wasm → wasm-bindgen glue → embedded bytes, then
// bundle.mjs: tsc → lib/, and esbuild's bundle of it → dist/.
//
// Why the core's bytes are embedded as base64: `webmcp()` and
// `configureWebMCP()` to validate and throw synchronously in Node and in browsers, with no
// top-level await and nothing compiled at import time. A module that ships inside the package
// can be compiled synchronously on first use everywhere (Node, Vite, a plain <script
// type="module">, strict CSP with only 'wasm-unsafe-eval'), and no bundler has to know about a
// .wasm asset. The size cost is measured and printed below (and kept in wasm/sizes.json).
//
// Every module ships the same way: LZMA-compressed (xz's raw LZMA1), base64-encoded, in a JS
// module, decoded in the page by one decoder of ours (the `unlzma/` crate, in the page's entry:
// pkg-js/src/boundary/unlzma.ts). The core is in the entry; shaping, the JSON Schema validator, the
// pattern judgement and the linear-time pattern engine are chunks loaded when first needed
// (pkg-js/src/validator/validator-loader.ts says why a JS chunk rather than a .wasm asset).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync, mkdirSync, rmSync, copyFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync, brotliCompressSync, constants as zlib } from 'node:zlib';
import { compile } from './bundle.mjs';

const pkgDir = dirname(fileURLToPath(import.meta.url));
const root = join(pkgDir, '..');
const wasmDir = join(pkgDir, 'wasm');
const run = (cmd, args, opts = {}) => {
  console.log(`$ ${cmd} ${args.join(' ')}`);
  execFileSync(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
};

/**
 * How the validator module is built (both of its builds below share it, so the suite's tests
 * run on the very code pages get). A compressed chunk, imported when first needed: every
 * bundler splits a dynamic import, none needs to know about a .wasm asset, and no request can
 * fail. `wasm-opt -O1 --converge`: measured again on the parser-free module, still the smallest
 * deflate (-Oz, -Os, -O2, -O3 2.4-2.8 KB larger; see pkg-js/src/validator/validator-loader.ts).
 *
 * LLVM's inline threshold raised from opt-level "z"'s to 40 (`rustflags`), for every crate of
 * this module: validation ~20 % faster (boon's walk and the maps it fills are small generic
 * functions that "z" leaves uninlined; measured with the module's JSON parser at ~13.9 → ~11.1
 * µs, and again without it: plain "z" is 1.17-1.27x slower) for ~1.1 KB of deflate. Passing it
 * to the last crate only (`cargo rustc`) gained nothing: the dependencies' own optimization
 * matters. The core stays at "z": 40 costs it +4.5 KB brotli. Other flags mean another build of
 * every dependency, so this module has its own target dir.
 *
 * Overflow checks off but in boon (Cargo.toml, [profile.release.package.boon]): 1.7 KB less
 * deflate; boon, which walks the agent's arguments, keeps them.
 */
const VALIDATOR_BUILD = { embed: 'lzma', env: { CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS: 'false' }, wasmOpt: ['-O1', '--converge', '--strip-target-features'], rustflags: '-C llvm-args=-inline-threshold=40', targetSubdir: 'validator', validatorGlue: true };

/**
 * Built like the core (opt-level "z", no overflow checks: clippy's `arithmetic_side_effects`
 * checks the crate's own arithmetic, Cargo.toml [profile.release]), in a target dir of its own.
 * `wasm-opt -O1`: the smallest compressed of the passes measured (-Oz/-Os are smaller raw but
 * compress worse, and --converge adds nothing; bench/RESULTS.md, "Build choices").
 * `--strip-target-features` (every module): the `target_features` section only informs linkers;
 * browsers ignore it. `replaceable`: `initSync` may instantiate again after
 * a trap (the glue's guard would return the first instance forever).
 */
const LIKE_CORE = { embed: 'lzma', env: { CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS: 'false' }, wasmOpt: ['-O1', '--strip-target-features'], replaceable: true };

/** The modules we build and their cargo arguments: each is a crate of wasm/ (ARCHITECTURE.md,
 * "Crates"); the validator's features add the pattern judgement or the test suite's export. */
const MODULES = [
  // The core must be usable synchronously: its bytes are in the entry. LZMA rather than Zopfli's
  // deflate: smaller at import, for a longer decode on the main thread when the first
  // `webmcp()` needs the core synchronously (bench/RESULTS.md, "Patterns").
  { name: 'warden_core', cargoArgs: ['-p', 'warden_core'], ...LIKE_CORE },
  // Shaping: stateless, so a module of its own that a page without a JSON Schema loads before its
  // first call (pkg-js/src/shape/shape-module.ts); the core a page downloads at import is lighter
  // without it (bench/RESULTS.md).
  { name: 'warden_shape', cargoArgs: ['-p', 'warden_shape'], ...LIKE_CORE, targetSubdir: 'shape' },
  // Resource URIs (src/uri.rs, templates of src/matcher.rs): compiled synchronously by the
  // resource code (pkg-js/src/subjects/uri-module.ts) only, so a page of tools downloads none of it.
  // opt-level 3, not "z": every resource read crosses it, and 3 measured twice as fast here, and
  // no larger (bench/RESULTS.md).
  { name: 'warden_uri', cargoArgs: ['-p', 'warden_uri'], ...LIKE_CORE, env: { CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS: 'false', CARGO_PROFILE_RELEASE_OPT_LEVEL: '3' }, targetSubdir: 'uri' },
  // Policy lint (`lintPolicy`): compiled synchronously by pkg-js/src/api/lint-module.ts, which only
  // `lintPolicy` reaches, so a page that never lints downloads none of it (bench/RESULTS.md).
  { name: 'warden_lint', cargoArgs: ['-p', 'warden_lint'], ...LIKE_CORE, targetSubdir: 'lint' },
  // Limits (the policy's `limits`): compiled synchronously by the `webmcp-warden/limits` entry
  // (pkg-js/src/limits.ts), so only a page that imports it downloads it. opt-level 2, not "z":
  // every call of a tool a limit selects crosses it, and 2 measured a third faster there, and
  // as fast as 3 for less (bench/RESULTS.md).
  { name: 'warden_limits', cargoArgs: ['-p', 'warden_limits'], ...LIKE_CORE, env: { CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS: 'false', CARGO_PROFILE_RELEASE_OPT_LEVEL: '2' }, targetSubdir: 'limits' },
  // The validator, which shapes too: a page with a JSON Schema loads it when it registers, when it
  // would load the shaping module too, and one module carries what both need once (one glue, the
  // allocator and the wire format once; bench/RESULTS.md, "Build choices").
  { name: 'warden_validate', cargoArgs: ['-p', 'warden_validate'], ...VALIDATOR_BUILD },
  // The same, judging patterns too (wasm/patterns/): what a page whose schemas hold patterns
  // loads instead of the validator and the judgement module (one download, smaller than the two:
  // bench/RESULTS.md, "Build choices").
  // Its glue, written under the validator's name (the module's imports are named after it), is
  // the validator's own plus `judge`: one glue serves both builds (pkg-js/src/validator/validator-chunk.ts).
  { name: 'warden_validate_judge', outName: 'warden_validate', cargoArgs: ['-p', 'warden_validate', '--features', 'judge'], ...VALIDATOR_BUILD, targetSubdir: 'validator-judge' },
  // The pattern judgement (src/pattern/judge.rs): how each of the page's patterns may run on an
  // agent's text. A chunk a page loads when it first has a pattern (pkg-js/src/boundary/patterns.ts), and
  // a copy `lintPolicy()` compiles synchronously (`sync`: pkg-js/src/api/lint.ts), so a page that
  // never imports `lintPolicy` never downloads that copy.
  // `wasm-opt -O3` rather than -O1 here: it compresses smaller for this module (measured).
  { name: 'warden_patterns', cargoArgs: ['-p', 'warden_patterns'], ...LIKE_CORE, wasmOpt: ['-O3', '--strip-target-features'], targetSubdir: 'patterns', sync: true },
  // The linear-time pattern engine (src/pattern/linear.rs, regex-lite): a chunk a page loads
  // only when a pattern's judgement routes long strings to it.
  { name: 'warden_linear', cargoArgs: ['-p', 'warden_linear'], ...LIKE_CORE, targetSubdir: 'linear' },
  // For the package's JSON-Schema-Test-Suite run only (pkg-js/test/json-schema-suite.test.mjs):
  // the same module with the export that sets the suite's dialect and remote documents, built
  // into wasm-test/ (not in the npm package), so pages do not download it (~1 KB).
  { name: 'warden_validate_suite', cargoArgs: ['-p', 'warden_validate', '--features', 'suite-export'], ...VALIDATOR_BUILD, outDir: 'wasm-test' },
];

function bindgenVersionFromLock() {
  const lock = readFileSync(join(root, 'Cargo.lock'), 'utf8');
  const match = lock.match(/name = "wasm-bindgen"\nversion = "([^"]+)"/);
  if (!match) throw new Error('wasm-bindgen not found in Cargo.lock');
  return match[1];
}

function checkBindgenCli() {
  const want = bindgenVersionFromLock();
  let have = '';
  try {
    have = execFileSync('wasm-bindgen', ['--version'], { encoding: 'utf8' }).trim().split(' ')[1] ?? '';
  } catch {
    have = 'missing';
  }
  if (have !== want) {
    throw new Error(`wasm-bindgen CLI is ${have}, the crate is ${want}: run scripts/setup.sh (cargo install wasm-bindgen-cli --version =${want})`);
  }
}

function sizes(bytes) {
  return {
    raw: bytes.length,
    gzip: gzipSync(bytes, { level: 9 }).length,
    brotli: brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

function wasmOpt(file, passes) {
  const bin = join(root, 'node_modules', '.bin', 'wasm-opt');
  // A module that names its passes (both do) always runs them; one that names none runs -Oz
  // only with WASM_OPT=1 (measured: -Oz makes a module smaller raw but larger after gzip and
  // brotli, which is what a page downloads).
  if (!existsSync(bin) || (passes === undefined && process.env.WASM_OPT !== '1')) {
    console.log('wasm-opt skipped' + (existsSync(bin) ? ' (set WASM_OPT=1 to run it)' : ' (npm binaryen not installed)'));
    return;
  }
  // npm's binaryen only: Debian's binaryen 108 emits modules that crash at init.
  run(bin, [...(passes ?? ['-Oz']), '--enable-bulk-memory', '--enable-reference-types', '--enable-nontrapping-float-to-int', '--enable-sign-ext', '--enable-mutable-globals', '--enable-multivalue', '--enable-simd', file, '-o', file + '.opt']);
  copyFileSync(file + '.opt', file);
  rmSync(file + '.opt');
}

/**
 * The string path out of the validator's glue, made faster for what it carries: each pattern
 * test's text and the answer (`{"valid":true}`) are short, and for up to 64 ASCII bytes a loop
 * beats a `TextDecoder` call (measured with the instance path it had then: together ~1 µs of the
 * ~11 µs a typical tool's arguments took to validate). Nothing but test set-up crosses into the
 * module as a string any more: schemas and instances go in as wire-format bytes.
 */
function fasterStrings(glue, name) {
  const decode = `function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    return decodeText(getUint8ArrayMemory0().subarray(ptr, ptr + len));
}`;
  if (!glue.includes(decode)) throw new Error(`glue of ${name}: getStringFromWasm0 changed; update build.mjs (fasterStrings)`);
  return glue.replace(decode, `function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    const mem = getUint8ArrayMemory0();
    if (len <= 64) {
        let text = '';
        for (let i = ptr, end = ptr + len; i < end; i++) {
            const byte = mem[i];
            if (byte > 0x7f) return decodeText(mem.subarray(ptr, ptr + len));
            text += String.fromCharCode(byte);
        }
        return text;
    }
    return decodeText(mem.subarray(ptr, ptr + len));
}`);
}

/**
 * The glue's top-level statements made free of side effects (`/* @__PURE__ *\/` calls of small
 * functions that do the same work): the glue of every module is bundled into a chunk of dist/
 * (bundle.mjs), and a page's bundler keeps a chunk's top-level statement that may have an effect,
 * with everything it reaches (the lint module's glue and bytes in the main entry's chunk). A call
 * annotated pure is dropped when nothing uses what it makes. Same objects, same warm-up as
 * wasm-bindgen's; only their creation moves into a function.
 */
function pureTopLevel(glue, name) {
  const decoder = "let cachedTextDecoder = new TextDecoder('utf-8', { ignoreBOM: true });\ncachedTextDecoder.decode();\n";
  const encoder = /const cachedTextEncoder = new TextEncoder\(\);\n\nif \(!\('encodeInto' in cachedTextEncoder\)\) \{\n    cachedTextEncoder\.encodeInto = function \(arg, view\) \{\n        const buf = cachedTextEncoder\.encode\(arg\);\n        view\.set\(buf\);\n        return \{\n            read: arg\.length,\n            written: buf\.length\n        \};\n    \};\n\}\n/;
  const hasDecoder = glue.includes('cachedTextDecoder');
  const hasEncoder = glue.includes('cachedTextEncoder');
  if (hasDecoder && !glue.includes(decoder)) throw new Error(`glue of ${name}: its TextDecoder set-up changed; update build.mjs (pureTopLevel)`);
  if (hasEncoder && !encoder.test(glue)) throw new Error(`glue of ${name}: its TextEncoder set-up changed; update build.mjs (pureTopLevel)`);
  let out = glue;
  if (hasDecoder) {
    out = out.replace(decoder, `/** Added by build.mjs: the decoder wasm-bindgen makes at top level, made by a call (see pureTopLevel). */
function newTextDecoder() {
    const made = new TextDecoder('utf-8', { ignoreBOM: true });
    made.decode();
    return made;
}
let cachedTextDecoder = /* @__PURE__ */ newTextDecoder();
`);
  }
  if (hasEncoder) {
    out = out.replace(encoder, `/** Added by build.mjs: the encoder wasm-bindgen makes at top level, made by a call (see pureTopLevel). */
function newTextEncoder() {
    const made = new TextEncoder();
    if (!('encodeInto' in made)) {
        made.encodeInto = function (arg, view) {
            const buf = made.encode(arg);
            view.set(buf);
            return {
                read: arg.length,
                written: buf.length
            };
        };
    }
    return made;
}
const cachedTextEncoder = /* @__PURE__ */ newTextEncoder();
`);
  }
  return out;
}

/**
 * Copies a host file the glue imports as `./<file>` (a `raw_module` of the crate, e.g.
 * wasm/host/lib.rs) from pkg-js/src/ to `<dir>/<file>`, beside the glue: a path the package's own
 * modules can import too (the same module instance as the glue's).
 */
function copyHost(glue, name, dir, file) {
  if (!glue.includes(`from './${file}'`)) throw new Error(`glue of ${name} does not import ./${file}; update build.mjs`);
  copyFileSync(join(pkgDir, 'src', file), join(dir, file));
  return glue;
}

/**
 * The validator's glue: its pattern engine (pkg-js/src/validator-host.js) moves beside it
 * ({@link copyHost}); its string path out is made faster ({@link fasterStrings}); and the glue
 * gets `__wbg_reset()`, which forgets the instance so that the next `initSync()` instantiates the
 * module again (the loader's recovery after a trap).
 */
function finishValidatorGlue(name, dir) {
  const gluePath = join(dir, `${name}.js`);
  let glue = copyHost(readFileSync(gluePath, 'utf8'), name, dir, 'validator-host.js');
  for (const needed of ['let wasmModule, wasmInstance, wasm;', 'let cachedDataViewMemory0 = null;', 'let cachedUint8ArrayMemory0 = null;']) {
    if (!glue.includes(needed)) throw new Error(`glue of ${name} no longer declares \`${needed}\`; update build.mjs (__wbg_reset)`);
  }
  glue = fasterStrings(glue, name);
  glue += `
/** Added by build.mjs: forgets the instance, so that the next initSync() instantiates the module again. */
export function __wbg_reset() {
    wasm = undefined;
    wasmInstance = undefined;
    wasmModule = undefined;
    cachedDataViewMemory0 = null;
    cachedUint8ArrayMemory0 = null;
}
`;
  writeFileSync(gluePath, glue);
  const typesPath = join(dir, `${name}.d.ts`);
  writeFileSync(typesPath, readFileSync(typesPath, 'utf8') + '\n/** Forgets the instance, so that the next initSync() instantiates the module again. */\nexport function __wbg_reset(): void;\n');
  writeFileSync(join(dir, 'validator-host.d.ts'), [
    "/** The validator module's pattern engines and JSON parser (pkg-js/src/validator-host.js). */",
    'export declare function patternCompile(source: string, flags: string): number;',
    'export declare function patternJudge(id: number, source: string, flags: string, allowUnsafe: boolean): number;',
    'export declare function judgementWord(index: number): number;',
    'export declare function patternTest(id: number, text: string, linear: boolean): boolean;',
    'export declare function patternRelease(id: number): void;',
    'export declare function patternReleaseAll(): void;',
    'export declare function patternCount(): number;',
    "/** The judgement and the linear engine, shared with the core's patterns (the entry's pattern-host.js). */",
    'export interface PatternEngines {',
    '  judge(id: number, source: string, flags: string, allowUnsafe: boolean): number;',
    '  word(index: number): number;',
    '  linearTest(id: number, text: string): boolean;',
    '  release(id: number): void;',
    '  releaseAll(): void;',
    '}',
    'export declare function setPatternEngines(engines: PatternEngines): void;',
    'export declare function setJsonEncoder(encode: (value: unknown) => Uint8Array): void;',
    'export declare function jsonParse(text: string): Uint8Array;',
    '',
  ].join('\n'));
}

/** The declarations of pkg-js/src/pattern-host.js, which the core's glue and the package import. */
const PATTERN_HOST_TYPES = `/** The page's pattern engines for the core and the validator (pkg-js/src/pattern-host.js). */
import type { PatternEngines } from './validator-host.js';
/** A module's glue and its compiled module, as a loader answers them. */
export interface Loaded<G> { glue: G; module: WebAssembly.Module }
/** The judgement module's glue (wasm/patterns/lib.rs). */
export interface JudgeGlue {
  initSync(options: { module: WebAssembly.Module }): unknown;
  judge(source: string, flags: string, allowUnsafe: boolean): Uint32Array;
}
/** The linear engine module's glue (wasm/linear/lib.rs), by slots the host chooses. */
export interface LinearGlue {
  initSync(options: { module: WebAssembly.Module }): unknown;
  compile(slot: number, source: string, flags: string): boolean;
  test(slot: number, text: string): number;
  release(slot: number): void;
}
/** Loads the two modules (the package's patterns.ts installs them). */
export interface PatternLoaders {
  judge(): Promise<Loaded<JudgeGlue>>;
  linear(): Promise<Loaded<LinearGlue>>;
}
/** A pattern of the core, refused once judged, as it was compiled. */
export interface Refused { source: string; flags: string; allowUnsafe: boolean }
export declare function setPatternLoaders(loaders: PatternLoaders): void;
export declare function installJudge(loaded: Loaded<JudgeGlue>): void;
export declare function hasJudge(): boolean;
export declare function startPatternLoad(): Promise<void>;
export declare function judgementMissing(): boolean;
export declare function adoptJudge(loading: Promise<Loaded<JudgeGlue>>): void;
export declare function patternsSettled(): Promise<void> | undefined;
export declare function patternLoadFailure(): unknown;
export declare function patternsWanted(): boolean;
export declare function refusedPatterns(): Refused[];
export declare function validatorMisses(): number;
export declare function judgePattern(slot: number, source: string, flags: string, allowUnsafe: boolean): number;
export declare function judgementWord(index: number): number;
export declare function linearTest(slot: number, text: string): boolean;
export declare function linearRelease(slot: number): void;
export declare function coreReplaced(): void;
export declare const validatorEngines: PatternEngines;
`;

/**
 * Where cargo builds: CARGO_TARGET_DIR (worktrees sharing one machine each set their own) or
 * target/, and `subdir` of it for a build with other flags or another crate.
 */
function cargoTargetDir(subdir) {
  const base = process.env.CARGO_TARGET_DIR ? resolve(root, process.env.CARGO_TARGET_DIR) : join(root, 'target');
  return subdir ? join(base, subdir) : base;
}

async function buildModule({ name, outName = name, cargoArgs, embed, wasmOpt: passes, env = {}, rustflags, targetSubdir, outDir, validatorGlue, replaceable, sync }) {
  const dir = outDir ? join(pkgDir, outDir) : wasmDir;
  mkdirSync(dir, { recursive: true });
  // `cargo rustc --crate-type cdylib`: the module alone, even from a crate that is an rlib too
  // (one the validator links, or the tests): rustc optimizes a cdylib built with an rlib in the
  // same run less (bench/RESULTS.md, "Run of 2026-12-06 (third)").
  const args = ['rustc', '--release', '--target', 'wasm32-unknown-unknown', '--lib', ...cargoArgs, '--crate-type', 'cdylib'];
  const targetDir = cargoTargetDir(targetSubdir);
  const flags = rustflags ? { RUSTFLAGS: [process.env.RUSTFLAGS, rustflags].filter(Boolean).join(' ') } : {};
  // opt-level "z": measured smaller than "s" for both modules (the size of a page's download
  // matters more here than the last few percent of speed).
  run('cargo', args, { env: { ...process.env, CARGO_PROFILE_RELEASE_OPT_LEVEL: 'z', CARGO_TARGET_DIR: targetDir, ...flags, ...env } });
  // Each module is a crate of wasm/ (`-p <crate>`), whose library is named after it.
  const crate = cargoArgs[cargoArgs.indexOf('-p') + 1];
  const built = join(targetDir, 'wasm32-unknown-unknown', 'release', `${crate}.wasm`);
  run('wasm-bindgen', ['--target', 'web', '--out-dir', dir, '--out-name', outName, '--remove-name-section', '--remove-producers-section', built]);
  const wasmFile = join(dir, `${outName}_bg.wasm`);
  const before = sizes(readFileSync(wasmFile));
  wasmOpt(wasmFile, passes);
  const bytes = readFileSync(wasmFile);
  if (validatorGlue) finishValidatorGlue(outName, dir);

  // The glue's default `init()` would fetch `new URL('<name>_bg.wasm', import.meta.url)`;
  // bundlers see that URL and emit the .wasm as an asset even though we never fetch it.
  const gluePath = join(dir, `${outName}.js`);
  const glue = readFileSync(gluePath, 'utf8');
  const urlExpr = `new URL('${outName}_bg.wasm', import.meta.url)`;
  if (!glue.includes(urlExpr)) throw new Error(`glue of ${outName} no longer contains ${urlExpr}; update build.mjs`);
  let patched = pureTopLevel(glue.replaceAll(urlExpr, 'undefined'), outName);
  // The patterns of the core, the lint module and the limits module are judged through
  // pkg-js/src/pattern-host.js, one module beside their glue (its state is the page's).
  if (name === 'warden_core' || name === 'warden_lint' || name === 'warden_limits') {
    patched = copyHost(patched, name, dir, 'pattern-host.js');
    if (name === 'warden_core') writeFileSync(join(dir, 'pattern-host.d.ts'), PATTERN_HOST_TYPES);
  }
  if (replaceable) {
    // A trapped instance must be replaceable (pkg-js/src/boundary/core.ts, pkg-js/src/shape/shaping.ts,
    // pkg-js/src/boundary/patterns.ts): `initSync` may instantiate again. The glue's guard returns the
    // first instance forever.
    const guard = /(function initSync\(module\) \{\n)(\s*)if \(wasm !== undefined\) return wasm;\n/;
    if (!guard.test(patched)) throw new Error(`glue of ${name}: initSync no longer starts with its instance guard; update build.mjs`);
    patched = patched.replace(guard, '$1');
  }
  writeFileSync(gluePath, patched);

  // The glue's declarations reach the public types (`ready` lives next to the loader); their
  // `[Symbol.dispose]` members need lib esnext, which breaks users who check library types with
  // es2022. The method stays in the JS; only its declaration goes.
  const typesPath = join(dir, `${outName}.d.ts`);
  const types = readFileSync(typesPath, 'utf8').replace(/^\s*\[Symbol\.dispose\]\(\): void;\n/gm, '');
  writeFileSync(typesPath, types);
  rmSync(wasmFile);
  // Every shipped module is a file too: the Node build reads it instead of decoding the embedded
  // copy, and `webmcp-warden/slim` loads the core's (bundle.mjs copies them).
  if (!outDir) writeFileSync(join(dir, `${name}.wasm`), bytes);
  if (embed !== 'lzma') throw new Error(`build.mjs: module ${name} has no way to ship (embed must be 'lzma')`);
  // Gzip and brotli cannot recompress LZMA, but they pack its base64 back to about its size.
  const base64 = JSON.stringify(lzmaCompress(bytes).toString('base64'));
  const what = `the ${name} module, LZMA-compressed (a properties byte, then xz's raw LZMA1), base64-encoded`;
  const exports = `export const WASM_FILE = ${JSON.stringify(`${name}.wasm`)};\nexport const WASM_LZMA_BASE64 = ${base64};\n`;
  const declarations = `/** The module's file name (the Node build reads it beside its code: pkg-js/src/boundary/wasm-bytes-node.ts). */\nexport declare const WASM_FILE: string;\n/** ${what[0].toUpperCase()}${what.slice(1)}. */\nexport declare const WASM_LZMA_BASE64: string;\n`;
  const js = `// Generated by build.mjs: ${what}, and its file's name.\n${exports}`;
  writeFileSync(join(dir, `${name}_bytes.js`), js);
  writeFileSync(join(dir, `${name}_bytes.d.ts`), declarations);
  if (sync) {
    // A second copy of the glue with the bytes, for a module compiled synchronously by code in
    // the page's entry (pkg-js/src/api/lint.ts): a file both the entry and a lazily imported chunk
    // imported would be put in the entry by esbuild, bytes and all, for every page.
    writeFileSync(join(dir, `${name}_sync.js`), `${patched}\n// Added by build.mjs: ${what}, and its file's name.\n${exports}`);
    writeFileSync(join(dir, `${name}_sync.d.ts`), `${types}\n${declarations}`);
  }
  return { name, beforeWasmOpt: before, wasm: sizes(bytes), embeddedJs: sizes(Buffer.from(js)) };
}

function checkBudget(report) {
  const budget = JSON.parse(readFileSync(join(pkgDir, 'size-budget.json'), 'utf8'));
  const over = [];
  for (const module of report) {
    const limit = budget[module.name];
    if (!limit) continue;
    // `brotli`, `gzip`, `raw`: the .wasm; `embeddedJs.*`: the JS module that carries it.
    for (const [key, max] of Object.entries(limit)) {
      const [where, kind] = key.includes('.') ? key.split('.') : ['wasm', key];
      const actual = module[where]?.[kind];
      if (actual === undefined) throw new Error(`size-budget.json: ${module.name} has no measurement "${key}"`);
      if (actual > max) over.push(`${module.name} ${key} ${actual} B > budget ${max} B`);
    }
  }
  if (over.length) throw new Error(`size budget exceeded:\n  ${over.join('\n  ')}`);
}

/**
 * The decoder module of ours (a crate of its own, no std, no wasm-bindgen: no imports, no glue):
 * the `unlzma/` crate that decodes every other module (pkg-js/src/boundary/unlzma.ts). Built for wasm32,
 * `wasm-opt -Oz` with its custom sections stripped, and embedded raw (compressing it would need
 * the decoder it is) as hex: every byte two whole characters, so gzip and brotli still find the
 * module's byte patterns, where base64 scrambles them (bench/RESULTS.md, "Build choices"). In a target
 * dir of its own. Answers its size report and its bytes.
 */
function buildDecoder({ crate, name, exportName, what }) {
  const targetDir = cargoTargetDir(crate);
  // opt-level "z" and no overflow checks, as the decoder was always built (its arithmetic is the
  // LZMA specification's, unlzma/src/lib.rs); a cdylib alone, as the modules are (buildModule).
  run('cargo', ['rustc', '--release', '--target', 'wasm32-unknown-unknown', '--lib', '-p', name, '--crate-type', 'cdylib'], { env: { ...process.env, CARGO_PROFILE_RELEASE_OPT_LEVEL: 'z', CARGO_PROFILE_RELEASE_OVERFLOW_CHECKS: 'false', CARGO_TARGET_DIR: targetDir } });
  const wasmFile = join(wasmDir, `${name}.wasm`);
  copyFileSync(join(targetDir, 'wasm32-unknown-unknown', 'release', `${name}.wasm`), wasmFile);
  wasmOpt(wasmFile, ['-Oz', '--strip-debug', '--strip-producers', '--strip-target-features']);
  const bytes = readFileSync(wasmFile);
  rmSync(wasmFile);
  const js = `// Generated by build.mjs: ${what} (${crate}/), hex-encoded.\nexport const ${exportName} = ${JSON.stringify(bytes.toString('hex'))};\n`;
  writeFileSync(join(wasmDir, `${name}_bytes.js`), js);
  writeFileSync(join(wasmDir, `${name}_bytes.d.ts`), `/** ${what} (${crate}/), hex-encoded. */\nexport declare const ${exportName}: string;\n`);
  return { report: { name, wasm: sizes(bytes), embeddedJs: sizes(Buffer.from(js)) }, bytes };
}

/** The LZMA decoder's bytes, once built (the validator's stream is checked with it). */
let unlzmaWasm;

/**
 * LZMA of a module: smaller than Zopfli's deflate for every module (bench/RESULTS.md), decoded in the page by the `unlzma/` crate. The stream is xz's
 * raw LZMA1 (`xz --format=raw`, the best preset; lc=3, lp=0, pb=0 measured smallest) behind
 * the `.lzma` header's properties byte, and is decoded back here with the page's own decoder
 * before it ships.
 */
function lzmaCompress(bytes) {
  const [lc, lp, pb] = [3, 0, 0];
  let raw;
  try {
    raw = execFileSync('xz', ['--format=raw', `--lzma1=preset=9e,lc=${lc},lp=${lp},pb=${pb}`, '--stdout'], { input: bytes, maxBuffer: 64 * 1024 * 1024 });
  } catch (err) {
    throw new Error(`build.mjs: xz (Debian's xz-utils) compresses the modules; run scripts/setup.sh (${err.message})`);
  }
  const stream = Buffer.concat([Buffer.from([lc + 9 * (lp + 5 * pb)]), raw]);
  const decoder = new WebAssembly.Instance(new WebAssembly.Module(unlzmaWasm)).exports;
  new Uint8Array(decoder.memory.buffer, decoder.input(), stream.length).set(stream);
  const started = decoder.start(stream.length);
  // One slice with a budget past the output buffer: the whole stream.
  const written = started < 0 ? started : decoder.resume(0x7fffffff);
  if (written < 0 || !Buffer.from(decoder.memory.buffer, decoder.output(), written).equals(bytes)) {
    throw new Error(`build.mjs: the LZMA stream does not decode to the module (answer ${written})`);
  }
  return stream;
}

checkBindgenCli();
rmSync(wasmDir, { recursive: true, force: true });
mkdirSync(wasmDir, { recursive: true });
for (const module of MODULES) if (module.outDir) rmSync(join(pkgDir, module.outDir), { recursive: true, force: true });
const unlzma = buildDecoder({ crate: 'unlzma', name: 'warden_unlzma', exportName: 'UNLZMA_WASM_HEX', what: 'the raw-LZMA decoder module' });
unlzmaWasm = unlzma.bytes;
const report = [unlzma.report];
for (const module of MODULES) {
  const built = await buildModule(module);
  // What pages download; test-only modules are not shipped.
  if (!module.outDir) report.push(built);
}
writeFileSync(join(wasmDir, 'sizes.json'), JSON.stringify(report, null, 2) + '\n');
console.log('\nmodule sizes (bytes)   raw      gzip     brotli');
for (const m of report) {
  for (const [label, s] of [['wasm (before wasm-opt)', m.beforeWasmOpt], ['wasm', m.wasm], ['embedded .js', m.embeddedJs]].filter(([, s]) => s)) {
    console.log(`${m.name} ${label}`.padEnd(40), String(s.raw).padStart(8), String(s.gzip).padStart(8), String(s.brotli).padStart(8));
  }
}
checkBudget(report);
// The JavaScript: tsc → lib/ (the tree the tests of internals import) and its bundle → dist/ (what npm ships): bundle.mjs.
await compile();
console.log('pkg-js built: dist/ and wasm/ are ready for npm pack (lib/ is the tests\' tree)');
