// Hook contexts: global and provider hooks see unknown input; error hooks get `failure`.
import { configureWebMCP, createWarden, getGlobalHooks, webmcp, type CallError, type WebMCPHooks } from 'webmcp-warden';
import { expect, type Equal } from './assert.js';

configureWebMCP({
  hooks: {
    before: [
      (ctx) => {
        expect<Equal<typeof ctx.input, unknown>>();
        ctx.metadata.started = performance.now();
      },
      { id: 'deny-mallory', match: 'shop/*', timeout: 200, run: (ctx) => (ctx.principal === 'mallory' ? { action: 'deny', message: 'Not you.', code: 'blocked' } : undefined) },
      () => ({ action: 'halt', result: 'stopped' }),
    ],
    after: [{ id: 'audit', onError: 'ignore', run: (ctx) => expect<Equal<typeof ctx.output, unknown>>() }],
    error: [
      (ctx) => {
        expect<Equal<typeof ctx.failure, CallError>>();
        expect<Equal<typeof ctx.error, unknown>>();
        return ctx.failure.kind === 'tool' ? { action: 'recover', result: 'fallback' } : undefined;
      },
    ],
    denied: [(ctx) => void [ctx.reason, ctx.code, ctx.failure.reason]],
    toolsListed: [(tools) => tools.filter((t) => !t.name.startsWith('internal_'))],
  },
});
// @ts-expect-error global hooks cannot know the input's type
configureWebMCP({ hooks: { before: [(ctx) => void ctx.input.quantity] } });
// @ts-expect-error no hook may allow
configureWebMCP({ hooks: { before: [() => ({ action: 'allow' })] } });
// @ts-expect-error onError exists for hooks with options only as 'fail' | 'ignore'
configureWebMCP({ hooks: { after: [{ run: () => undefined, onError: 'retry' }] } });

const hooks: WebMCPHooks = getGlobalHooks();
createWarden({ hooks });

// A tool's own hooks see its types; output rewrites keep the result's type.
webmcp(({ n }: { n: number }) => n * 2, {
  name: 'times_two',
  hooks: {
    before: [(ctx) => expect<Equal<typeof ctx.input, { n: number }>>()],
    after: [(ctx) => ({ output: ctx.output + 1 })],
    denied: [(ctx) => expect<Equal<typeof ctx.input, { n: number }>>()],
  },
});
webmcp(({ n }: { n: number }) => n * 2, {
  name: 'times_two_bad',
  // @ts-expect-error an after hook's output rewrite must keep the result's type
  hooks: { after: [() => ({ output: 'two' })] },
});
