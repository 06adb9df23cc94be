// The peer for the hooks-only case: a minimal pure-JS hook loop doing what simple-webmcp 0.3
// does per call (merge global/tool hooks, run before-hooks, the tool, after-hooks, normalize).
// Written here so both sides do the same work in the same process.

/** simple-webmcp's mergeHooksOrdered: before global → tool, after tool → global. */
export function mergeHooksOrdered(globalHooks, toolHooks) {
  return {
    before: [...(globalHooks.before ?? []), ...(toolHooks.before ?? [])],
    after: [...(toolHooks.after ?? []), ...(globalHooks.after ?? [])],
    error: [...(toolHooks.error ?? []), ...(globalHooks.error ?? [])],
  };
}

export function normalizeResult(value) {
  if (value === null || value === undefined) return { content: [{ type: 'text', text: '' }] };
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  if (typeof value === 'number' || typeof value === 'boolean') return { content: [{ type: 'text', text: String(value) }] };
  if (typeof value === 'object' && Array.isArray(value.content)) return value;
  return { content: [{ type: 'text', text: JSON.stringify(value, null, 2) }] };
}

let counter = 0;

/** A hooked execute in the style of simple-webmcp's createHookedExecute. */
export function peerExecute(fn, getGlobalHooks, toolHooks) {
  return async (input) => {
    const hooks = mergeHooksOrdered(getGlobalHooks(), toolHooks);
    const base = { invocationId: `webmcp_${++counter}`, metadata: {}, signal: undefined };
    let current = input;
    try {
      for (const hook of hooks.before) {
        const r = await hook({ ...base, input: current });
        if (r && r.action === 'deny') return { content: [{ type: 'text', text: 'Denied: ' + (r.message ?? 'Tool execution denied') }], isError: true };
        if (r && r.input !== undefined) current = r.input;
      }
      let output = await fn(current);
      for (const hook of hooks.after) {
        const r = await hook({ ...base, input: current, output });
        if (r && r.output !== undefined) output = r.output;
      }
      return normalizeResult(output);
    } catch (err) {
      for (const hook of hooks.error) {
        try { await hook({ ...base, input: current, error: err }); } catch { /* swallowed */ }
      }
      return { content: [{ type: 'text', text: 'Error: ' + (err?.message ?? String(err)) }], isError: true };
    }
  };
}
