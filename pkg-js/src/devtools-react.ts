'use client';
// webmcp-warden/devtools/react: <WardenDevtools />, the devtools panel (devtools.ts) mounted by a
// component, for the client of the nearest <WebMCPProvider client> (else the default client), or
// the one given. An entry of its own, like webmcp-warden/devtools, so that `react` stays an
// optional peer of the panel and a page that renders no devtools downloads none of it.
import { createElement, useEffect, useRef, type ReactElement } from 'react';
import { mountWardenDevtools, type WardenDevtoolsOptions } from './devtools.js';
import { useWardenClient } from './react/context.js';

/** Props of {@link WardenDevtools}. */
export interface WardenDevtoolsProps extends WardenDevtoolsOptions {
  /** A class name for the element the panel is mounted in. */
  className?: string;
}

/**
 * The webmcp-warden devtools panel: tools, calls with their steps, pending asks to approve or
 * deny, grants to revoke, and a kill switch. Render it in development builds only.
 */
export function WardenDevtools(props: WardenDevtoolsProps): ReactElement {
  const nearest = useWardenClient();
  const client = props.client ?? nearest;
  const { collapsed, maxCalls, className } = props;
  const holder = useRef<HTMLDivElement | null>(null);
  useEffect(() => {
    if (holder.current === null) return undefined;
    const panel = mountWardenDevtools(holder.current, { client, collapsed, maxCalls });
    return () => panel.unmount();
  }, [client, collapsed, maxCalls]);
  return createElement('div', { ref: holder, className });
}

export type { WardenDevtoolsOptions } from './devtools.js';
