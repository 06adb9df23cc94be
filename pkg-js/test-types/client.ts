// The default client's functions and a client's methods infer and answer the same types.
import { createWarden, explain, invokeTool, listTools, type CallOutcome, type Explanation, type ToolContract, type WardenClient, type WebMCPTool } from 'webmcp-warden';
import { expect, type Equal } from './assert.js';

const client: WardenClient = createWarden({ serverId: 'shop' });
const tool = client.webmcp(async ({ sku }) => ({ sku, inStock: true }), {
  name: 'stock',
  description: 'Says whether a product is in stock',
  inputSchema: { type: 'object', properties: { sku: { type: 'string', minLength: 1 } }, required: ['sku'] },
});
expect<Equal<Parameters<typeof tool.invoke>[0], { sku: string }>>();
expect<Equal<ReturnType<typeof tool>, Promise<{ sku: string; inStock: boolean }>>>();
// Any typed tool is a WebMCPTool.
export const untyped: WebMCPTool = tool;

export async function calls(): Promise<void> {
  const a: CallOutcome = await tool.invoke({ sku: 'mug' }, { principal: 'alice', taint: ['web'], shape: false, signal: AbortSignal.timeout(1000), assigns: { tenant: 't' } });
  if (a.ok) void a.result.content;
  else expect<Equal<typeof a.error.kind, 'not_found' | 'hook' | 'validation' | 'denied' | 'tool' | 'aborted'>>();
  // In-page agents call by name: the input is unknown to the types.
  const b: CallOutcome = await invokeTool('stock', { sku: 1 });
  const c: CallOutcome = await client.invokeTool('stock', { sku: 'mug' });
  const listed: ToolContract[] = await listTools();
  const why: Explanation = await explain('stock', { sku: 'mug' });
  // A dry run of a client of its own: the `client` option (explain is not a method).
  const whyHere: Explanation = await explain('stock', { sku: 'mug' }, { client, principal: 'alice' });
  void [b, c, listed, why, whyHere];
  // @ts-expect-error call options are checked
  await tool.invoke({ sku: 'mug' }, { principal: 42 });
  // @ts-expect-error the direct call takes the function's input
  await tool({ sku: 2 });
  // @ts-expect-error a failed outcome only has `error`
  void a.error;
}
// A client is one object, but users see only its public methods: none of its state.
// @ts-expect-error the client's settings are not part of WardenClient
void client.settings;
// @ts-expect-error nor its engine
void client.engine;
// Its methods are bound: destructured, they are the client's.
const { webmcp: make, invokeTool: call } = createWarden();
export const destructuredTool: WebMCPTool = make(() => 1, { name: 'destructured', description: 'd' });
export const destructuredCall: Promise<CallOutcome> = call('destructured');
client.dispose();
