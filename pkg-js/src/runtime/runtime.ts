// The browser's WebMCP runtime: `document.modelContext`, else the deprecated
// `navigator.modelContext`. MCP-B (`@mcp-b/global`) replaces `document.modelContext` with its
// `BrowserMcpServer`, which is a WebMCP runtime too and also serves MCP clients, resources and
// prompts (docs/mcp-b.md).

/** What webmcp-warden needs of a WebMCP runtime. */
export interface ModelContextLike {
  registerTool(
    descriptor: Record<string, unknown> & { execute: (input: unknown, extra?: { signal?: AbortSignal }) => Promise<unknown> },
    options?: { signal?: AbortSignal },
  ): Promise<void> | void;
}

/** A registration MCP-B answers for a resource or a prompt. */
export interface RegistrationHandle {
  unregister(): void;
}

/**
 * What webmcp-warden uses of MCP-B's runtime beyond WebMCP: its `McpServer` (the official MCP
 * SDK's, whose registrations carry each request's context), resources, prompts, its tool list
 * and its `toolchange` event.
 */
export interface McpBRuntime extends ModelContextLike {
  readonly __isBrowserMcpServer: true;
  readonly mcpServer?: unknown;
  registerResource?(descriptor: Record<string, unknown>): RegistrationHandle;
  registerPrompt?(descriptor: Record<string, unknown>): RegistrationHandle;
  listTools?(): { name?: unknown }[];
  addEventListener?(type: string, listener: () => void): void;
  removeEventListener?(type: string, listener: () => void): void;
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

/** Whether `runtime` is MCP-B's `BrowserMcpServer` (the marker its own `isBrowserMcpServer` reads). */
export function isMcpB(runtime: unknown): runtime is McpBRuntime {
  return runtime !== null && typeof runtime === 'object' && (runtime as { __isBrowserMcpServer?: unknown }).__isBrowserMcpServer === true;
}

function isModelContext(value: unknown): value is ModelContextLike {
  return value !== null && typeof value === 'object' && typeof (value as { registerTool?: unknown }).registerTool === 'function';
}
