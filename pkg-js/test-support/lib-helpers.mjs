// The helpers of helpers.mjs for a test that reaches the package's internals (lib/, its modules
// one per source file, not shipped): the tools they make are made by lib/index.js, the same
// module instances the test's internal imports use.
import * as entry from '../lib/index.js';
import { bindPackage } from './helpers.mjs';

bindPackage(entry);

export * from './helpers.mjs';
