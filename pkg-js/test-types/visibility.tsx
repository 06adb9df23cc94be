// Seeing what the governor does, as users type it: the debug and hotReload settings, the kill
// switch, a rule's label, the approval requests, <ApprovalDialog> (markup and render function),
// the devtools entries, and the telemetry events by name.
import { configureWebMCP, createWarden, definePolicy, onTelemetry, resumeAgents, suspendAgents, type TelemetryEvent } from 'webmcp-warden';
import { ApprovalDialog, WebMCPProvider, useApprovals, type ApprovalDialogState, type Ask, type AskStatus } from 'webmcp-warden/react';
import { mountWardenDevtools, type WardenDevtools } from 'webmcp-warden/devtools';
import { WardenDevtools as Devtools } from 'webmcp-warden/devtools/react';
import { expect, type Equal } from './assert.js';

configureWebMCP({ debug: true, hotReload: false, policy: definePolicy({ ask: [{ match: 'pay', label: 'Payments need your approval', when: { arg: '/amount', min: 5 } }] }) });
// @ts-expect-error debug is a boolean
configureWebMCP({ debug: 'yes' });
// @ts-expect-error a label is text
definePolicy({ ask: [{ match: 'pay', label: 5 }] });

suspendAgents('An incident is being handled.');
resumeAgents();
// @ts-expect-error the reason is required
suspendAgents();
const client = createWarden();
client.suspendAgents('stop');
expect<Equal<ReturnType<typeof client.suspension>, string | null>>();

onTelemetry((event: TelemetryEvent) => {
  if (event.name === 'agents.suspended') expect<Equal<typeof event.reason, string>>();
});

export function Requests() {
  const { pending } = useApprovals();
  const ask: Ask | undefined = pending[0];
  if (ask === undefined) return null;
  expect<Equal<typeof ask.createdAt, number>>();
  expect<Equal<typeof ask.deadline, number>>();
  expect<Equal<typeof ask.summary.text, string>>();
  expect<Equal<typeof ask.summary.label, string | undefined>>();
  expect<Equal<typeof ask.summary.arguments, { path: string; value: string }[]>>();
  const status: AskStatus = ask.status;
  return (
    <div role="alertdialog" aria-label={ask.summary.text} data-status={status}>
      <p>{ask.explanation}</p>
      <button onClick={() => ask.approve('always')}>Always</button>
      <button onClick={() => ask.deny('No.', { halt: true })}>Deny</button>
      <button onClick={() => ask.cancel()}>Close</button>
    </div>
  );
}

export const page = (
  <WebMCPProvider approver>
    <Requests />
    <ApprovalDialog allowAlways={false} denyReason="Not now." className="approval" />
    <ApprovalDialog>
      {(state: ApprovalDialogState) => {
        expect<Equal<typeof state.remainingMs, number>>();
        return state.ask === undefined ? null : <p id={state.ids.title}>{state.expired ? 'expired' : state.ask.summary.text}</p>;
      }}
    </ApprovalDialog>
    <Devtools collapsed maxCalls={20} />
  </WebMCPProvider>
);

const panel: WardenDevtools = mountWardenDevtools(document.body, { client, collapsed: true });
panel.unmount();
// @ts-expect-error an element is required
mountWardenDevtools();
