// What agents are doing on the page right now: calls in progress and the last outcome of each
// tool, per client. A framework-agnostic store (subscribe + immutable snapshots, the zustand
// way) that the React layer reads with `useSyncExternalStore`; every agent path of a tool
// (`execute` registered with the browser, `invokeTool`, `tool.invoke`) reports here.
import type { CallOutcome } from '../types/types.js';

/** The execution state of one tool. */
export interface ToolActivity {
  /** Calls of the tool in progress. */
  readonly running: number;
  /** The last finished call's outcome (`{ ok, result }` or `{ ok: false, error, result }`). */
  readonly lastResult: CallOutcome | undefined;
  /** How many calls finished. */
  readonly executionCount: number;
}

/** One call in progress. */
export interface ActiveCall {
  /** The call's invocation id. */
  readonly invocationId: string;
  /** The tool's name. */
  readonly tool: string;
  /** When it started (`performance.now()`). */
  readonly startedAt: number;
}

/** Everything a client's agents are doing, as one immutable snapshot. */
export interface ActivitySnapshot {
  /** Calls in progress, oldest first. */
  readonly inProgress: readonly ActiveCall[];
  /** The state of each tool that was called, by name. */
  readonly tools: ReadonlyMap<string, ToolActivity>;
}

const IDLE: ToolActivity = Object.freeze({ running: 0, lastResult: undefined, executionCount: 0 });

/** A client's activity store. */
export class ActivityStore {
  private snapshot: ActivitySnapshot = Object.freeze({ inProgress: Object.freeze([]) as readonly ActiveCall[], tools: new Map() });
  private readonly listeners = new Set<() => void>();

  /** Subscribes to changes; answers the unsubscribe function. */
  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  /** The current snapshot (the same object until something changes). */
  readonly getSnapshot = (): ActivitySnapshot => this.snapshot;

  /** The state of one tool (the same object until that tool's state changes). */
  tool(name: string): ToolActivity {
    return this.snapshot.tools.get(name) ?? IDLE;
  }

  /** Whether anyone listens (calls skip the bookkeeping otherwise). */
  get observed(): boolean {
    return this.listeners.size > 0;
  }

  /** A call started. */
  started(call: ActiveCall): void {
    const current = this.tool(call.tool);
    this.update([...this.snapshot.inProgress, call], call.tool, { ...current, running: current.running + 1 });
  }

  /** A call finished with `outcome`. */
  finished(call: ActiveCall, outcome: CallOutcome): void {
    const current = this.tool(call.tool);
    const inProgress = this.snapshot.inProgress.filter((other) => other !== call);
    this.update(inProgress, call.tool, { running: Math.max(0, current.running - 1), lastResult: outcome, executionCount: current.executionCount + 1 });
  }

  /** Forgets everything (`resetWebMCP()`). */
  reset(): void {
    this.snapshot = Object.freeze({ inProgress: Object.freeze([]) as readonly ActiveCall[], tools: new Map() });
    this.notify();
  }

  private update(inProgress: ActiveCall[], tool: string, state: ToolActivity): void {
    const tools = new Map(this.snapshot.tools);
    tools.set(tool, Object.freeze(state));
    this.snapshot = Object.freeze({ inProgress: Object.freeze(inProgress), tools });
    this.notify();
  }

  private notify(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // a listener's failure is its own
      }
    }
  }
}
