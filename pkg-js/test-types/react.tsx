// useWebMCP infers as webmcp() does: from the schema, else the function's annotation, never a
// silent any.
import * as z from 'zod';
import { webmcp, type CallOutcome, type WebMCPHooks } from 'webmcp-warden';
import { WebMCPProvider, useApprovals, useWebMCP, useWebMCPPrompt, useWebMCPResource } from 'webmcp-warden/react';
import { expect, type Equal } from './assert.js';

declare function pay(total: number, signal: AbortSignal): Promise<{ receipt: string }>;

const search = webmcp(({ query }: { query: string }) => [query], { name: 'search', description: 'Searches' });

export function Checkout() {
  const checkout = useWebMCP(
    async ({ total }, { signal }) => {
      expect<Equal<typeof total, number>>();
      return pay(total, signal);
    },
    {
      name: 'checkout',
      description: 'Pays for the cart.',
      inputSchema: { type: 'object', properties: { total: { type: 'number' } }, required: ['total'] },
      hooks: { before: [(ctx) => (ctx.input.total > 500 ? { action: 'deny', message: 'Too much' } : undefined)] },
    },
  );
  const invoked: Promise<CallOutcome> = checkout.tool.invoke({ total: 12 });
  void invoked;
  // @ts-expect-error total must be a number
  void checkout.tool.invoke({ total: '12' });

  const zodded = useWebMCP(({ id }) => id.toUpperCase(), { name: 'shout', description: 'Shouts', schema: z.object({ id: z.string() }), enabled: true });
  expect<Equal<ReturnType<typeof zodded.tool>, string>>();

  const given = useWebMCP(search, { enabled: false });
  expect<Equal<typeof given.tool, typeof search>>();
  // @ts-expect-error only `enabled` applies to a tool made by webmcp()
  useWebMCP(search, { name: 'other' });
  // @ts-expect-error an unannotated input without a schema is unknown, never a silent any
  useWebMCP(async ({ total }) => pay(total, new AbortController().signal), { name: 'pay', description: 'Pays' });
  // @ts-expect-error a name is a string
  useWebMCP(({ q }: { q: string }) => q, { name: 7, description: 'Numbered' });

  const { status, isExecuting, executionCount, lastResult, lastError } = checkout;
  return (
    <small>
      {status} {String(isExecuting)} {executionCount} {lastResult?.ok ? 'ok' : lastError?.message}
    </small>
  );
}

function Approvals() {
  const { pending } = useApprovals();
  return (
    <>
      {pending.map((ask) => (
        <button key={ask.id} onClick={() => ask.approve('once')}>
          Allow {ask.call.name}
        </button>
      ))}
    </>
  );
}

const scoped: WebMCPHooks = { after: [(ctx) => console.log('done', ctx.tool.toolName)] };
export const App = () => (
  <WebMCPProvider approver hooks={scoped}>
    <Checkout />
    <Approvals />
  </WebMCPProvider>
);

// Resources and prompts under a provider.
export function Notes() {
  const notes = useWebMCPResource((uri, params) => `${uri.href} ${params.id}`, { uri: 'notes://{id}', name: 'notes', enabled: true, hooks: { resourceRead: [(ctx) => void ctx.uri] } });
  const read: Promise<unknown> = notes.resource.read('notes://1');
  void read;
  const prompt = useWebMCPPrompt(({ topic }) => `About ${topic}`, { name: 'about', argsSchema: { type: 'object', properties: { topic: { type: 'string' } } } });
  expect<Equal<typeof prompt.status, 'unregistered' | 'registering' | 'registered' | 'error' | 'unsupported'>>();
  // @ts-expect-error a prompt needs a name
  useWebMCPPrompt(() => 'x', { description: 'Nameless' });
  return (
    <WebMCPProvider hooks={{ resourceRead: [() => ({ action: 'deny' })], promptGet: [(ctx) => ({ args: { topic: String(ctx.args) } })] }}>
      <small>{notes.status}</small>
    </WebMCPProvider>
  );
}
