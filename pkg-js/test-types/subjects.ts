// Resources and prompts: options, gate hook contexts and returns, outcomes, policy sections.
import {
  configureWebMCP,
  createWarden,
  definePolicy,
  getPrompt,
  readResource,
  webmcpPrompt,
  webmcpResource,
  type GetPromptResult,
  type PromptGetContext,
  type ReadResourceResult,
  type ResourceReadContext,
  type ResourceReadStopEvent,
  type SubjectOutcome,
  type TelemetryEvent,
} from 'webmcp-warden';
import { expect, type Equal } from './assert.js';

const profile = webmcpResource((uri, params, { signal }) => {
  expect<Equal<typeof uri, URL>>();
  expect<Equal<typeof params, Record<string, string>>>();
  expect<Equal<typeof signal, AbortSignal>>();
  return `profile ${params.id}`;
}, {
  uri: 'user://{id}/profile',
  name: 'profile',
  mimeType: 'text/plain',
  hooks: { resourceRead: [{ id: 'no-zero', match: 'user://0/*', run: (ctx) => (ctx.params.id === '0' ? { action: 'deny', message: 'No.' } : undefined) }] },
});
const summarize = webmcpPrompt(({ topic }) => `Summarize ${topic}`, {
  name: 'summarize',
  argsSchema: { type: 'object', properties: { topic: { type: 'string' } }, required: ['topic'] },
  hooks: { promptGet: [(ctx) => ({ args: { topic: String(ctx.args).trim() } })] },
});
void profile.register();
void summarize.register();

async function agent(): Promise<void> {
  const read = await readResource('user://1/profile', { principal: 'alice' });
  expect<Equal<typeof read, SubjectOutcome<ReadResourceResult>>>();
  if (read.ok) void read.result.contents[0]?.text;
  else void [read.error.kind, read.text];
  const got = await getPrompt('summarize', { topic: 'mugs' });
  expect<Equal<typeof got, SubjectOutcome<GetPromptResult>>>();
  if (got.ok) void got.result.messages.map((m) => m.role);
  void (await profile.read('user://2/profile'));
  void (await summarize.get({ topic: 'tea' }));
}
void agent;

configureWebMCP({
  hooks: {
    resourceRead: [(ctx) => expect<Equal<typeof ctx, ResourceReadContext>>()],
    promptGet: [(ctx) => void expect<Equal<typeof ctx, PromptGetContext>>()],
  },
  policy: definePolicy({
    allow: ['*'],
    resources: { deny: ['vault://*'], ask: [{ match: 'files://{+path}', when: { arg: '/path', matches: '^home/' } }], default: 'allow' },
    prompts: { allow: ['summarize'] },
  }),
  telemetry: (event: TelemetryEvent) => {
    if (event.name === 'resource_read.stop') expect<Equal<typeof event, ResourceReadStopEvent>>();
  },
});

// @ts-expect-error a resourceRead hook cannot rewrite: it may deny or return nothing
configureWebMCP({ hooks: { resourceRead: [() => ({ input: {} })] } });
// @ts-expect-error no hook may allow
configureWebMCP({ hooks: { promptGet: [() => ({ action: 'allow' })] } });
// @ts-expect-error a resource needs a name
webmcpResource(() => 'x', { uri: 'notes://a' });
// @ts-expect-error a resource's own hooks are resourceRead hooks
webmcpResource(() => 'x', { uri: 'notes://a', name: 'a', hooks: { before: [() => undefined] } });
// @ts-expect-error sections have no pins
definePolicy({ resources: { pin: 'ask' } });

// Resources and prompts take the client as an option (not methods: a page without them never loads their code).
const client = createWarden();
void webmcpPrompt(() => 'x', { name: 'p', client }).get();
void readResource('notes://a', { client });
void getPrompt('p', { topic: 'mugs' }, { client, principal: 'alice' });
// @ts-expect-error resources and prompts are not methods of a client
void client.readResource('notes://a');
// @ts-expect-error the client option is a client made by createWarden()
webmcpResource(() => 'x', { uri: 'notes://a', name: 'a', client: {} });
