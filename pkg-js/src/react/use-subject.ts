// useWebMCPResource / useWebMCPPrompt: a resource or prompt registered while the component is
// mounted (MCP-B's `registerResource` / `registerPrompt`; `'unsupported'` elsewhere), governed by
// the hooks of the providers above it, and its registration status.
import { useCallback, useContext, useEffect, useMemo, useRef, useSyncExternalStore } from 'react';
import type { ClientState } from '../client/client.js';
import { ConfigurationError } from '../util/errors.js';

import { getModelContext } from '../runtime/runtime.js';
import { createPrompt, createResource, onSubjectStatusChange, recordOfSubject } from '../subjects/subject.js';
import type { PromptGet, RegistrationStatus, ResourceRead, WebMCPPrompt, WebMCPPromptOptions, WebMCPResource, WebMCPResourceOptions } from '../types/types.js';
import { ScopeContext, useIsomorphicLayoutEffect, clientStateOf } from './context.js';
import { resolveScope } from './scope.js';
import { structureOf, wrapHooks, type HookSource } from './wrappers.js';
import { isPlainObject, typeName } from '../util/js-values.js';

/** What {@link useWebMCPResource} and {@link useWebMCPPrompt} report. */
export interface UseWebMCPSubjectResult {
  /** The page's runtime has resources and prompts (MCP-B). */
  supported: boolean;
  /** Registered with the runtime. */
  registered: boolean;
  /** The registration status (`'unsupported'` where the runtime has no resources or prompts). */
  status: RegistrationStatus;
  /** The registration error, when `status` is `'error'`. */
  error: Error | null;
}

/** The resource or prompt a mount made, and what made it. */
interface Slot<T> {
  key: string;
  w: ClientState;
  subject: T;
  source: HookSource;
}

const subscribeNothing = (): (() => void) => () => undefined;
const unregisteredStatus = (): RegistrationStatus => 'unregistered';
const notSupported = (): boolean => false;

/**
 * One mount's resource or prompt: made once per definition (the options' JSON and the hooks'
 * structure) and client, calling the latest committed function and hooks; registered while
 * mounted and enabled. StrictMode's mount → unmount → mount leaves one registration, as for
 * tools (`register()` answers the live registration; an aborted one is inert).
 */
function useSubject<T extends WebMCPResource | WebMCPPrompt>(
  what: 'useWebMCPResource' | 'useWebMCPPrompt',
  fn: (...args: any[]) => unknown,
  options: (WebMCPResourceOptions | WebMCPPromptOptions) & { enabled?: boolean },
  make: (w: ClientState, fn: (...args: any[]) => unknown, options: any) => T,
  method: 'registerResource' | 'registerPrompt',
): UseWebMCPSubjectResult & { subject: T } {
  const context = useContext(ScopeContext);
  const { handle } = context;
  if (typeof fn !== 'function') throw new ConfigurationError('invalid_options', `${what} expects a function, not ${typeName(fn)}`);
  if (!isPlainObject(options)) throw new ConfigurationError('invalid_options', `${what} options must be an object, not ${typeName(options)}`);
  const { enabled = true, hooks, ...plain } = options;
  if (typeof enabled !== 'boolean') throw new ConfigurationError('invalid_options', `${what}: enabled must be a boolean`, 'enabled');
  const w = clientStateOf(context);
  const latest = useRef(fn);
  const slot = useRef<Slot<T> | undefined>(undefined);
  let key: string;
  try {
    key = JSON.stringify([plain, structureOf(hooks)]);
  } catch {
    key = '$unkeyable';
  }
  if (slot.current === undefined || slot.current.key !== key || slot.current.w !== w) {
    const source: HookSource = { hooks };
    const proxy = (...args: unknown[]) => latest.current(...args);
    const subject = make(w, proxy, hooks === undefined ? plain : { ...plain, hooks: wrapHooks(hooks, source) });
    const record = recordOfSubject(subject);
    // Its reads and gets run under the providers above this mount.
    if (record !== undefined) record.scopeOf = () => resolveScope(handle);
    slot.current = { key, w, subject, source };
  }
  const { subject, source } = slot.current;
  useIsomorphicLayoutEffect(() => {
    latest.current = fn;
    source.hooks = hooks;
  });
  useEffect(() => {
    if (!enabled) return undefined;
    const controller = new AbortController();
    // A failure lands in status and error, which this hook mirrors.
    subject.register({ signal: controller.signal }).catch(() => undefined);
    return () => controller.abort();
  }, [subject, enabled]);
  const record = recordOfSubject(subject);
  const subscribe = useCallback((listener: () => void) => (record ? onSubjectStatusChange(record, listener) : () => undefined), [record]);
  const getStatus = useCallback(() => subject.status, [subject]);
  const status = useSyncExternalStore(subscribe, getStatus, unregisteredStatus);
  const isSupported = useCallback(() => typeof (getModelContext() as Record<string, unknown> | undefined)?.[method] === 'function', [method]);
  const supported = useSyncExternalStore(subscribeNothing, isSupported, notSupported);
  const error = status === 'error' ? subject.error : null;
  return useMemo(() => ({ supported, registered: status === 'registered', status, error, subject }), [supported, status, error, subject]);
}

/**
 * `useWebMCPResource(read, { uri, name, description?, mimeType?, hooks?, enabled? })`: a governed
 * resource (see `webmcpResource`) of the component's client, registered while mounted. Inline
 * functions and option literals cause no re-registration (the latest committed `read` and hooks
 * are called); a changed definition makes a new resource, registered in place of the old one.
 */
export function useWebMCPResource(read: ResourceRead, options: WebMCPResourceOptions & { enabled?: boolean }): UseWebMCPSubjectResult & { resource: WebMCPResource } {
  const { subject, ...rest } = useSubject('useWebMCPResource', read, options, (w, fn, opts) => createResource(w, fn as ResourceRead, opts), 'registerResource');
  return useMemo(() => ({ ...rest, resource: subject }), [rest.supported, rest.status, rest.error, subject]); // eslint-disable-line react-hooks/exhaustive-deps
}

/**
 * `useWebMCPPrompt(get, { name, description?, argsSchema?, hooks?, enabled? })`: a governed
 * prompt (see `webmcpPrompt`) of the component's client, registered while mounted, as
 * {@link useWebMCPResource} is.
 */
export function useWebMCPPrompt(get: PromptGet, options: WebMCPPromptOptions & { enabled?: boolean }): UseWebMCPSubjectResult & { prompt: WebMCPPrompt } {
  const { subject, ...rest } = useSubject('useWebMCPPrompt', get, options, (w, fn, opts) => createPrompt(w, fn as PromptGet, opts), 'registerPrompt');
  return useMemo(() => ({ ...rest, prompt: subject }), [rest.supported, rest.status, rest.error, subject]); // eslint-disable-line react-hooks/exhaustive-deps
}
