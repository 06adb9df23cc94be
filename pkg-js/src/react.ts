'use client';
// webmcp-warden/react: <WebMCPProvider>, useWebMCP, useWebMCPResource, useWebMCPPrompt,
// useApprovals, useAgentActivity.
//
// A thin adapter over the framework-free client (`createWarden()`), its tool records and its
// activity store: React decides only *when* (render, commit, unmount). The pieces, one concern
// each (none imports this file, and none imports a later one in this list):
//
// - react/wrappers.ts   provider and per-mount hooks compiled once per structure, reached through wrappers
// - react/scope.ts      provider scopes in the client's core, and each scope's approver
// - react/approvals.ts  the approval queue behind useApprovals()
// - react/context.ts    what a provider tells the components under it: client, scope, queue
// - react/mounts.ts     mount reference counting: the first live mount registers, the last unregisters
// - react/activity.ts   execution state read from the client's activity store
// - react/provider.ts   <WebMCPProvider> and useApprovals()
// - react/approval-dialog.ts <ApprovalDialog>, headless, over useApprovals()
// - react/use-webmcp.ts useWebMCP()
// - react/use-subject.ts useWebMCPResource() and useWebMCPPrompt()
// - react/use-webmcp-form.ts useWebMCPForm(): a declarative form governed while mounted
//
// Named re-exports only: a 'use client' module cannot `export *` (React Server Components need
// every client reference by name).
export { WebMCPProvider, useApprovals, type WebMCPProviderProps } from './react/provider.js';
export { useWebMCP, type UseWebMCPResult } from './react/use-webmcp.js';
export { useWebMCPResource, useWebMCPPrompt, type UseWebMCPSubjectResult } from './react/use-subject.js';
export { useWebMCPForm, type UseWebMCPFormOptions } from './react/use-webmcp-form.js';
export { useAgentActivity, type ExecutionState } from './react/activity.js';
export { WebMCPHooksContext, useWebMCPHooksContext, useWardenClient } from './react/context.js';
export { ApprovalDialog, type ApprovalDialogProps, type ApprovalDialogState } from './react/approval-dialog.js';
export type { Ask, Approvals, AskStatus, ApprovalSummary } from './react/approvals.js';
export type { ActivitySnapshot, ActiveCall, ToolActivity } from './client/activity-store.js';
