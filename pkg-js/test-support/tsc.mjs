// Runs the repository's TypeScript compilers (for the type tests and the README examples): the
// latest (`typescript`) and the oldest the package supports (`typescript-5.4`, an npm alias in
// the root devDependencies), so the declarations are checked on both.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const modules = path.join(fileURLToPath(new URL('../..', import.meta.url)), 'node_modules');

/** The compilers the type tests run: the package name of each, by the name tests print. */
export const COMPILERS = { latest: 'typescript', '5.4': 'typescript-5.4' };

/** Runs tsc (`compiler`: a key of COMPILERS) with `args` in `cwd`; answers { code, output } and never throws. */
export function runTsc(args, cwd, compiler = 'latest') {
  const tsc = path.join(modules, COMPILERS[compiler], 'bin', 'tsc');
  return new Promise((resolve) => {
    execFile(process.execPath, [tsc, ...args], { cwd, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, output: stdout + stderr });
    });
  });
}
