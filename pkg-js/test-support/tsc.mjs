// Runs the repository's TypeScript compiler (for the type tests and the README examples).
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const tsc = path.join(fileURLToPath(new URL('../..', import.meta.url)), 'node_modules', 'typescript', 'bin', 'tsc');

/** Runs tsc with `args` in `cwd`; answers { code, output } and never throws. */
export function runTsc(args, cwd) {
  return new Promise((resolve) => {
    execFile(process.execPath, [tsc, ...args], { cwd, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: stdout + stderr });
    });
  });
}
