// Execution state: what agents are doing with the tools of a client, read from the client's
// activity store (client/activity-store.ts) with `useSyncExternalStore`, the zustand way.
//
// The store answers immutable snapshots, and per tool the same object until that tool's state
// changes, so a component selecting one tool re-renders only when that tool's calls start or
// finish, never for another tool's. The store does its bookkeeping only while someone
// subscribes (`activity.observed`), so a page that never reads execution state pays nothing.
import { useCallback, useContext, useSyncExternalStore } from 'react';
import { ActivityStore, type ActivitySnapshot, type ToolActivity } from '../client/activity-store.js';
import type { ClientState } from '../client/client.js';
import type { CallError, CallOutcome } from '../types/types.js';
import { ScopeContext, clientStateOf } from './context.js';

/** The execution state of one tool, as {@link useWebMCP} reports it. */
export interface ExecutionState {
  /** A call of the tool is in progress (through any agent path: the browser, `invokeTool`, `tool.invoke`). */
  isExecuting: boolean;
  /**
   * The last finished call's outcome, as the caller got it: `{ ok: true, result }` or
   * `{ ok: false, error, result }`; `undefined` before the first. Do not change it: it is the
   * object the caller received.
   */
  lastResult: CallOutcome | undefined;
  /** The last finished call's error (`lastResult.error`): denied, failed, aborted, …; `null` when it succeeded or before the first. */
  lastError: CallError | null;
  /** How many calls of the tool finished, whatever their outcome (denials and failures count). */
  executionCount: number;
}

// The idle states are constants: a server render and a hydration read the same object, and an
// idle store maps to it too, so hydrating an idle page re-renders nothing.
const IDLE_TOOL: ToolActivity = Object.freeze({ running: 0, lastResult: undefined, executionCount: 0 });
const IDLE_SNAPSHOT: ActivitySnapshot = Object.freeze({ inProgress: Object.freeze([]) as readonly never[], tools: new Map<string, ToolActivity>() as ReadonlyMap<string, ToolActivity> });

/** `getServerSnapshot` of one tool: a server has no calls in progress. */
function idleTool(): ToolActivity {
  return IDLE_TOOL;
}

/** `getServerSnapshot` of the whole store. */
function idleSnapshot(): ActivitySnapshot {
  return IDLE_SNAPSHOT;
}

/**
 * The activity of tool `name` in `store`, re-rendering only when that tool's state changes.
 * Internal to `useWebMCP`.
 */
export function useToolActivity(store: ActivityStore, name: string): ToolActivity {
  const getSnapshot = useCallback(() => {
    const state = store.tool(name);
    return state.running === 0 && state.executionCount === 0 ? IDLE_TOOL : state;
  }, [store, name]);
  return useSyncExternalStore(store.subscribe, getSnapshot, idleTool);
}

/** The public view of one tool's activity (derived, so it changes exactly when the activity does). */
export function executionStateOf(state: ToolActivity): ExecutionState {
  const last = state.lastResult;
  return { isExecuting: state.running > 0, lastResult: last, lastError: last !== undefined && !last.ok ? last.error : null, executionCount: state.executionCount };
}

/**
 * What agents are doing on this page now, for the client the component uses (the nearest
 * `<WebMCPProvider client>`, else the default one): `inProgress`, the calls in progress oldest
 * first (`{ invocationId, tool, startedAt }`), and `tools`, each called tool's state by name
 * (`{ running, lastResult, executionCount }`). An immutable snapshot: the component re-renders
 * when any call of the client starts or finishes, and never otherwise. On a server: idle.
 */
export function useAgentActivity(): ActivitySnapshot {
  const store = activityOf(clientStateOf(useContext(ScopeContext)));
  const getSnapshot = useCallback(() => {
    const snapshot = store.getSnapshot();
    return snapshot.inProgress.length === 0 && snapshot.tools.size === 0 ? IDLE_SNAPSHOT : snapshot;
  }, [store]);
  return useSyncExternalStore(store.subscribe, getSnapshot, idleSnapshot);
}

/**
 * The activity store of client `w`, made when first asked for (by the React layer): calls report
 * to a client's store only once it has one, so a page that never reads activity never loads this
 * module.
 */
export function activityOf(w: ClientState): ActivityStore {
  w.activity ??= new ActivityStore();
  return w.activity;
}
