// <ApprovalDialog>: the oldest pending ask of the nearest `<WebMCPProvider approver>`, shown to
// the person who decides, headless. Give it a render function to draw it your way (it receives
// the ask, whether it expired, the time left, and the answers), or use its minimal unstyled
// markup as is: an `alertdialog` labelled by the ask's summary, the arguments that decided, the
// time left, and Allow once / Always allow / Deny buttons (Escape denies). An ask still waiting
// at its deadline is announced (`role="alert"`) until dismissed: the agent was told it was denied.
import { createElement, useEffect, useId, useRef, useState, type KeyboardEvent, type ReactElement, type ReactNode } from 'react';
import type { Ask } from './approvals.js';
import { useApprovals } from './provider.js';

/** What an `<ApprovalDialog>` render function receives. */
export interface ApprovalDialogState {
  /** The ask shown: the oldest pending one, or the one that just expired; `undefined` when idle. */
  ask: Ask | undefined;
  /** The ask shown expired before anyone answered it (announce it; `dismiss()` clears it). */
  expired: boolean;
  /** Milliseconds until the ask shown expires (refreshed every second), `0` once it has. */
  remainingMs: number;
  /** How many asks wait, the one shown included. */
  pendingCount: number;
  /** Allows the call once (or records a grant with `'always'`). */
  approve(mode?: 'once' | 'always'): void;
  /** Denies the call with `reason` (default: the dialog's `denyReason`). */
  deny(reason?: string): void;
  /** Withdraws the ask without an answer. */
  cancel(reason?: string): void;
  /** Clears the expired notice. */
  dismiss(): void;
  /** Ids for `aria-labelledby` / `aria-describedby` of markup of your own. */
  ids: { title: string; description: string };
}

/** Props of {@link ApprovalDialog}. */
export interface ApprovalDialogProps {
  /** Draws the dialog from its state (headless); without it, the minimal markup is rendered. */
  children?: (state: ApprovalDialogState) => ReactNode;
  /** Offer "Always allow" (records a grant; default `true`). */
  allowAlways?: boolean;
  /** The reason the agent reads when the person denies (default `'The user declined.'`). */
  denyReason?: string;
  /** A class name for the minimal markup's root (it has no styles of its own). */
  className?: string;
}

/** The reason the agent reads when the person denies, unless the page gives another. */
const DECLINED = 'The user declined.';

/**
 * The oldest pending ask of the nearest `<WebMCPProvider approver>`, for a person to answer; an
 * ask that expires while waiting is announced until dismissed. Must be inside such a provider
 * (as `useApprovals()`).
 */
export function ApprovalDialog(props: ApprovalDialogProps): ReactElement | null {
  const { children, allowAlways = true, denyReason = DECLINED, className } = props;
  const { pending } = useApprovals();
  const current = pending[0];
  const watched = useRef(new Set<Ask>());
  const [expired, setExpired] = useState<Ask | undefined>(undefined);
  const [now, setNow] = useState(() => Date.now());
  const id = useId();
  const ids = { title: `${id}-title`, description: `${id}-description` };
  const root = useRef<HTMLDivElement | null>(null);

  // An ask that leaves the list expired (not answered) is announced.
  useEffect(() => {
    for (const ask of watched.current) {
      if (pending.includes(ask)) continue;
      watched.current.delete(ask);
      if (ask.status === 'expired') setExpired(ask);
    }
    for (const ask of pending) watched.current.add(ask);
  }, [pending]);

  // The time left, once a second while an ask waits.
  useEffect(() => {
    if (current === undefined) return undefined;
    setNow(Date.now());
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, [current]);

  const shown = current ?? expired;
  // A new ask takes the focus (not a button: Enter must not answer it by accident).
  useEffect(() => {
    if (current !== undefined) root.current?.focus();
  }, [current]);

  const state: ApprovalDialogState = {
    ask: shown,
    expired: current === undefined && expired !== undefined,
    // Clamped to the ask's own span: `now` is read once a second, and may predate the ask.
    remainingMs: shown === undefined || shown === expired ? 0 : Math.min(shown.deadline - shown.createdAt, Math.max(0, shown.deadline - now)),
    pendingCount: pending.length,
    approve: (mode = 'once') => current?.approve(mode),
    deny: (reason = denyReason) => current?.deny(reason),
    cancel: (reason) => current?.cancel(reason),
    dismiss: () => setExpired(undefined),
    ids,
  };
  if (children !== undefined) return createElement('div', { ref: root, tabIndex: -1, className, onKeyDown: escapeDenies(state) }, children(state));
  if (shown === undefined) return null;
  return minimalMarkup(state, { allowAlways, className, root });
}

function escapeDenies(state: ApprovalDialogState) {
  return (event: KeyboardEvent) => {
    if (event.key === 'Escape' && state.ask !== undefined && !state.expired) {
      event.preventDefault();
      state.deny();
    }
  };
}

/** The dialog's own markup: semantic, unstyled. */
function minimalMarkup(state: ApprovalDialogState, options: { allowAlways: boolean; className: string | undefined; root: { current: HTMLDivElement | null } }): ReactElement {
  const ask = state.ask as Ask;
  const { summary } = ask;
  const h = createElement;
  if (state.expired) {
    return h(
      'div',
      { ref: options.root, tabIndex: -1, className: options.className, role: 'alert', 'data-state': 'expired' },
      h('p', { id: state.ids.title }, `The request from ${summary.tool} expired before anyone answered it; the agent was told it was denied.`),
      h('button', { type: 'button', onClick: state.dismiss }, 'Dismiss'),
    );
  }
  const seconds = Math.ceil(state.remainingMs / 1000);
  return h(
    'div',
    {
      ref: options.root,
      tabIndex: -1,
      className: options.className,
      role: 'alertdialog',
      'aria-modal': false,
      'aria-labelledby': state.ids.title,
      'aria-describedby': state.ids.description,
      'data-state': 'pending',
      onKeyDown: escapeDenies(state),
    },
    h('h2', { id: state.ids.title }, summary.label ?? `${summary.tool} asks for approval`),
    h('p', { id: state.ids.description }, summary.text),
    summary.arguments.length > 0
      ? h(
          'dl',
          null,
          summary.arguments.flatMap((arg) => [h('dt', { key: `t${arg.path}` }, arg.path), h('dd', { key: `d${arg.path}` }, arg.value)]),
        )
      : null,
    h('p', { 'aria-live': 'polite' }, `${seconds} s left${state.pendingCount > 1 ? ` · ${state.pendingCount - 1} more waiting` : ''}`),
    h('button', { type: 'button', onClick: () => state.approve('once') }, 'Allow once'),
    options.allowAlways ? h('button', { type: 'button', onClick: () => state.approve('always') }, 'Always allow') : null,
    h('button', { type: 'button', onClick: () => state.deny() }, 'Deny'),
  );
}
