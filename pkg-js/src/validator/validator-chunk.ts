// The validator's code, as one lazily imported chunk: the instance's guard
// (`validator-module.ts`), the module's generated glue and its host functions (the page's
// `RegExp` and `JSON.parse`, and the pattern engines the loader hands over). One chunk rather
// than three: each file a page fetches compresses on its own, and esbuild made a fourth of what
// the glue and the host share. The module's bytes stay a chunk of their own, fetched in parallel
// (`validator-loader.ts`). The glue and
// host are handed on as plain objects, not namespace re-exports: esbuild builds a namespace with a
// helper the entry uses too, which would become a chunk the entry imports. The glue serves both
// builds of the module (with and without the pattern judgement: pkg-js/build.mjs); `judge` is only
// called on the build that has it (`ValidatorModule.judgement`).
import { __test_trap, __testTrap, __wbg_reset, compile, dropSchema, initSync, judge, scanText, schemaCount, shapeFlagNames, shapeLimits, shapeMediaKinds, shapeResult, validate } from '../../wasm/warden_validate.js';
import { patternReleaseAll, setJsonEncoder, setPatternEngines } from '../../wasm/validator-host.js';
import type { Glue, Host } from './validator-module.js';

export { instantiate } from './validator-module.js';

/** The module's glue, as the instance's guard calls it. */
export const glue: Glue = { initSync, __wbg_reset, compile, validate, dropSchema, schemaCount, __test_trap, scanText, shapeFlagNames, shapeLimits, shapeMediaKinds, shapeResult, __testTrap, judge };

/** The module's host functions the loader and the guard call. */
export const host: Host = { patternReleaseAll, setJsonEncoder, setPatternEngines };
