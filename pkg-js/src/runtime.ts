// The browser's WebMCP runtime: `document.modelContext`, else the deprecated
// `navigator.modelContext`.

/** What webmcp-warden needs of a WebMCP runtime. */
export interface ModelContextLike {
  registerTool(
    descriptor: Record<string, unknown> & { execute: (input: unknown, extra?: { signal?: AbortSignal }) => Promise<unknown> },
    options?: { signal?: AbortSignal },
  ): Promise<void> | void;
}

/** The page's WebMCP runtime, or `undefined` when there is none (SSR, Node, other browsers). */
export function getModelContext(): ModelContextLike | undefined {
  const g = globalThis as { document?: { modelContext?: unknown }; navigator?: { modelContext?: unknown } };
  const fromDocument = g.document?.modelContext;
  if (isModelContext(fromDocument)) return fromDocument;
  let fromNavigator: unknown;
  try {
    fromNavigator = g.navigator?.modelContext;
  } catch {
    fromNavigator = undefined;
  }
  return isModelContext(fromNavigator) ? fromNavigator : undefined;
}

/** Whether this page has a WebMCP runtime. */
export function isWebMCPSupported(): boolean {
  return getModelContext() !== undefined;
}

function isModelContext(value: unknown): value is ModelContextLike {
  return value !== null && typeof value === 'object' && typeof (value as { registerTool?: unknown }).registerTool === 'function';
}
