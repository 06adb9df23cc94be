// Scenarios that need a process where nothing of the package has loaded yet (the core, the
// shaping chunk): run as a module in a fresh `node`, which prints its result as JSON last.
import { execFileSync } from 'node:child_process';

/** Runs `script` as an ES module in a fresh `node` and answers what it printed last, parsed as JSON. */
export function runFresh(script) {
  const out = execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' }).trim().split('\n').pop();
  return JSON.parse(out);
}

/**
 * Source for such a script: wraps `WebAssembly.Module` so that each synchronous compile of a
 * module exporting `exportName` adds one to `<counter>.<key>` (an object the script declares).
 */
export function countSyncCompiles(counter, key, exportName) {
  return `
    {
      const Module = WebAssembly.Module;
      WebAssembly.Module = new Proxy(Module, {
        construct(target, args) {
          const module = Reflect.construct(target, args);
          if (Module.exports(module).some((e) => e.name === ${JSON.stringify(exportName)})) ${counter}.${key}++;
          return module;
        },
      });
    }
  `;
}
