// The peer for the full-pipeline case: the same work as a governed call, in plain JS. The hook
// loop of peer-hooks.mjs, then input validation with @cfworker/json-schema (CSP-safe, no
// codegen), a policy decision by a loop of compiled RegExps (fixtures.mjs), the tool, the
// after-hooks, normalizing, and shaping text blocks with one Unicode regex replace.
import { Validator } from '@cfworker/json-schema';
import { mergeHooksOrdered, normalizeResult } from './peer-hooks.mjs';
import { peerDecide, PEER_STRIP } from './fixtures.mjs';

let counter = 0;

function textError(prefix, message) {
  return { content: [{ type: 'text', text: prefix + message }], isError: true };
}

/**
 * A governed execute in plain JS. `policy` is `peerPolicy(...)`; `schema` a JSON Schema; each
 * step is skipped when its option is absent (`shape: false` skips shaping).
 */
export function peerGovernedExecute(fn, getGlobalHooks, toolHooks, { schema, policy, server, name, shape = true }) {
  const validator = schema === undefined ? undefined : new Validator(schema, '2020-12');
  return async (input) => {
    const hooks = mergeHooksOrdered(getGlobalHooks(), toolHooks);
    const base = { invocationId: `webmcp_${++counter}`, metadata: {}, signal: undefined };
    let current = input;
    let result;
    try {
      for (const hook of hooks.before) {
        const r = await hook({ ...base, input: current });
        if (r && r.action === 'deny') return textError('Denied: ', r.message ?? 'Tool execution denied');
        if (r && r.input !== undefined) current = r.input;
      }
      const checked = validator === undefined ? { valid: true } : validator.validate(current);
      if (!checked.valid) return textError('Error: Validation failed: ', checked.errors.map((e) => `${e.instanceLocation} ${e.error}`).join('; '));
      const decision = policy === undefined ? { effect: 'allow' } : peerDecide(policy, server, name);
      if (decision.effect !== 'allow') return textError('Denied: ', `policy ${decision.effect}`);
      let output = await fn(current);
      for (const hook of hooks.after) {
        const r = await hook({ ...base, input: current, output });
        if (r && r.output !== undefined) output = r.output;
      }
      result = normalizeResult(output);
    } catch (err) {
      for (const hook of hooks.error) {
        try { await hook({ ...base, input: current, error: err }); } catch { /* swallowed */ }
      }
      result = textError('Error: ', err?.message ?? String(err));
    }
    if (!shape) return result;
    // Shaping: strip hidden characters from text blocks, say where the result came from.
    let touched = false;
    const content = result.content.map((block) => {
      if (block.type !== 'text') return block;
      const text = block.text.replace(PEER_STRIP, '');
      touched ||= text.length !== block.text.length;
      return { type: 'text', text };
    });
    const shaped = { content, provenance: { serverId: server, truncated: false, flags: touched ? ['hidden'] : [] } };
    if (result.isError) shaped.isError = true;
    return shaped;
  };
}
