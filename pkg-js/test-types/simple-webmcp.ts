// simple-webmcp's type names, used the way its reference shows them, with 'simple-webmcp'
// replaced by 'webmcp-warden'.
import type {
  WebMCPHooks, BeforeHook, AfterHook, ErrorHook, DeniedHook,
  BeforeContext, AfterContext, ErrorContext, DeniedContext, HookBaseContext, MaybePromise,
} from 'webmcp-warden';
import { webmcp, configureWebMCP, getGlobalHooks, resetGlobalHooks, mergeHooks, mergeHooksOrdered, createHookedExecute, genInvocationId, type CallError } from 'webmcp-warden';
import { expect, type Equal } from './assert.js';

async function getCart(input: { userId: string }): Promise<{ items: string[]; total: number }> {
  return { items: [input.userId], total: 0 };
}
type F = typeof getCart;

const requestId: BeforeHook<F> = (ctx: BeforeContext<F>) => {
  ctx.metadata.requestId = genInvocationId();
  expect<Equal<typeof ctx.input, unknown>>();
};
const addTenant: BeforeHook<F> = (ctx) => ({ input: { ...(ctx.input as object), tenant: 't1' } });
const blockGuests: BeforeHook<F> = async (ctx) => ((ctx.input as { userId?: string }).userId === 'guest' ? { action: 'deny', message: 'Sign in first', code: 'guest' } : undefined);
const redact: AfterHook<F> = (ctx: AfterContext<F>) => {
  expect<Equal<typeof ctx.output, { items: string[]; total: number }>>();
  return { output: { ...ctx.output, items: [] } };
};
const report: ErrorHook<F> = (ctx: ErrorContext<F>) => {
  console.error(ctx.invocationId, ctx.error);
  // webmcp-warden's addition: the failure as data.
  expect<Equal<typeof ctx.failure, CallError>>();
};
const onDenied: DeniedHook<F> = (ctx: DeniedContext<F>) => console.warn(ctx.reason, ctx.code, ctx.tool.toolName, ctx.contract.name);
const base = (ctx: HookBaseContext<F>): string => `${ctx.invocationId} ${String(ctx.signal.aborted)} ${Object.keys(ctx.metadata).length}`;
const later: MaybePromise<number> = Promise.resolve(1);
void [base, later];

const hooks: WebMCPHooks<F> = { before: [requestId, addTenant, blockGuests], after: [redact], error: [report], denied: [onDenied] };
const t1 = webmcp(getCart, { name: 'get_cart', description: 'The cart', hooks });
const t2 = webmcp(t1, { hooks: { before: [requestId] } });
export const cart: Promise<{ items: string[]; total: number }> = t2({ userId: 'u1' });

// Global hooks, WebMCPHooks<any> as simple-webmcp's users often write them.
const anyHooks: WebMCPHooks<any> = { before: [(ctx) => void ctx.metadata], after: [(ctx) => void ctx.output] };
configureWebMCP({ hooks: anyHooks });
webmcp.configure({ hooks: { before: [(ctx) => void ctx.invocationId] }, replace: true });
const current: WebMCPHooks = getGlobalHooks();
resetGlobalHooks();
const merged = mergeHooks(current, anyHooks);
mergeHooksOrdered({ globalHooks: merged, scopedHooks: {}, toolHooks: hooks });
createHookedExecute(getCart, t1, t1.definition, { getHooks: () => merged });
