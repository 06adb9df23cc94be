// Helpers shared by the node:test files of pkg-js/test/ (not a test file itself). It lives beside
// pkg-js/test/ rather than in it because `node --test pkg-js/test/` (Node 20) runs every .js/.mjs
// file under a folder named `test`, whatever its name, so a helper there would be run and counted
// as a test file.
//
// The helpers that make tools use the package as users get it ('webmcp-warden', the bundled
// dist/); a test that reaches the package's internals imports lib-helpers.mjs instead, the same
// helpers bound to lib/ (two copies of the package's modules in one process would not share
// their state).
import { readFileSync } from 'node:fs';
import { beforeEach, afterEach } from 'node:test';
import * as pkg from 'webmcp-warden';

/** The package the tool helpers below use (lib-helpers.mjs binds them to lib/). */
let webmcp = pkg.webmcp;
let resetWebMCP = pkg.resetWebMCP;

/** Binds the tool helpers to another build of the package's entry (lib-helpers.mjs). */
export function bindPackage(entry) {
  ({ webmcp, resetWebMCP } = entry);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
export const never = () => new Promise(() => {});
export const textOf = (outcome) => outcome.result.content[0].text;
export const clone = (value) => (value === undefined ? undefined : JSON.parse(JSON.stringify(value)));

/** A file of the shared fixtures (tests/fixtures/, the ones `cargo test` runs too), parsed. */
export const loadFixture = (file) => JSON.parse(readFileSync(new URL(`../../tests/fixtures/${file}`, import.meta.url), 'utf8'));

/** Fails instead of hanging the whole file when a call never settles. */
export async function settled(promise, ms = 3000, what = 'did not settle') {
  let timer;
  try {
    return await Promise.race([promise, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`${what} within ${ms} ms`)), ms); })]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The tools a test makes, unregistered after it so names can be reused, with the registry reset
 * before and after every test of the file. Call once at the top level of a test file and push
 * each tool made onto the array it returns.
 */
export function trackTools() {
  const made = [];
  beforeEach(() => {
    resetWebMCP();
    made.length = 0;
  });
  afterEach(() => {
    for (const t of made.splice(0)) t.unregister();
    resetWebMCP();
  });
  return made;
}

/**
 * `tool(fn, options)`: `webmcp(fn, { ...defaults(n), ...options })`, pushed onto `made` (by default
 * a fresh `trackTools()` list), where `n` counts the tools made (for unique default names).
 */
export function toolMaker(defaults, made = trackTools()) {
  let counter = 0;
  return (fn, options) => {
    const t = webmcp(fn, { ...defaults(++counter), ...options });
    made.push(t);
    return t;
  };
}

/**
 * Tools that record every input they receive, named `${prefix}_N` and unshaped (so results compare
 * as the pipeline made them): `recordingTool(options)` gives `{ tool, calls, name }`. `made` is the
 * `trackTools` list, for tools a test makes by hand.
 */
export function recordingTools(prefix, description, result = () => 'called') {
  const made = trackTools();
  let counter = 0;
  function recordingTool(options) {
    const calls = [];
    const name = `${prefix}_${++counter}`;
    const tool = webmcp((input) => {
      calls.push(input);
      return result();
    }, { name, description, shape: false, ...options });
    made.push(tool);
    return { tool, calls, name };
  }
  return { recordingTool, made };
}

/**
 * Sends what `console[method]` writes (each argument through `format`, joined by spaces) and every
 * process warning to `written`, until the returned function restores them.
 */
export function captureConsole(written, { methods = ['log', 'info', 'warn', 'error', 'debug', 'trace'], format = String } = {}) {
  const saved = {};
  for (const method of methods) {
    saved[method] = console[method];
    console[method] = (...args) => written.push(args.map((a) => format(a)).join(' '));
  }
  const onWarning = (warning) => written.push(`warning: ${warning.name}: ${warning.message}`);
  process.on('warning', onWarning);
  return () => {
    Object.assign(console, saved);
    process.off('warning', onWarning);
  };
}
