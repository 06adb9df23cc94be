/**
 * `webmcp-warden/forms`: governed declarative tools. A `<form toolname="…" tooldescription="…">`
 * is a tool the browser lists by itself (its fields become the input schema) and an agent's call
 * fills and submits it; `governForms()` runs that submit through the same pipeline as a
 * `webmcp()` tool: the form's fields as the input, before-hooks, validation against the form's
 * schema, policy and approval, the page's own answer (`respondWith`), after-hooks, shaping and
 * telemetry. A user's own submit is never touched.
 *
 * How (docs/runtimes.md, "Declarative forms", has what Chromium 156 does and why each step):
 * one capture listener on the document (or the shadow root) sees every submit before the page's
 * listeners, forms added later included. An agent-invoked one (`event.agentInvoked`) is held:
 * `preventDefault()`, no other listener, and `respondWith(governed)`, the governed call's
 * answer. When policy and approval let it through, the form's fields are written with the final
 * arguments and the submit is dispatched again, once, to the page's listeners, with an
 * `agentInvoked` and a `respondWith` that hand the page's answer to the pipeline; a submit no
 * listener prevented navigates as the form says. A denial answers the agent the reason, and the
 * form never submits.
 *
 * Its own entry, so a page that does not govern forms carries none of it.
 *
 * @packageDocumentation
 */
import { clientOption, type ClientOption } from './api.js';
import type { ClientState } from '../client/client.js';
import { ConfigurationError } from '../util/errors.js';
import { toWireResult } from '../util/mcp.js';
import { runCall } from './pipeline-loader.js';
import { isVisible, unknownToolOutcome } from '../client/registry.js';
import { getModelContext } from '../runtime/runtime.js';
import { createTool, recordOf } from './tool.js';
import { failedOutcome } from '../client/outcomes.js';
import type { ToolAnnotations, WebMCPHooks, WebMCPTool } from '../types/types.js';

/** Options of {@link governForms}. */
export interface GovernFormsOptions extends ClientOption {
  /**
   * Where the governed forms are: the document (default), an element (forms inside it, or the
   * form itself) or a shadow root (submits do not leave one: govern its forms with it as root).
   */
  root?: Document | Element | ShadowRoot;
  /** Tool-level hooks of every governed form (global and provider hooks apply too). */
  hooks?: WebMCPHooks;
  /** The forms' server id (default the client's `serverId`). */
  server?: string;
  /** Annotations the forms' tools are fingerprinted and judged with (policy's `annotation` predicate). */
  annotations?: ToolAnnotations;
  /** `'llm'` (default) or `false`: shaping of what the agent reads. */
  shape?: 'llm' | false;
}

/** What {@link governForms} answers. */
export interface GovernedForms {
  /** Stops governing: later submits reach the page as they would without this. */
  stop(): void;
}

/** A submit event as WebMCP extends it. */
type AgentSubmitEvent = SubmitEvent & { agentInvoked?: boolean; respondWith?: (answer: Promise<unknown>) => void };

/** The submits this package dispatches itself (the page's listeners see them; we do not). */
const ours = new WeakSet<Event>();

/** A JSON Schema's `properties`, or `undefined`. */
type Properties = Record<string, { type?: unknown } | undefined> | undefined;

/**
 * Governs agent-invoked submits of the `<form toolname>` elements under `options.root` (the
 * document by default), those added later included, until `stop()`. Without a document (SSR),
 * governs nothing.
 */
export function governForms(options: GovernFormsOptions = {}): GovernedForms {
  const [w, rest] = clientOption(options);
  return governFormsOf(w, rest, () => 0);
}

/**
 * {@link governForms} for client `w`, whose calls run under the provider scope `scopeOf()`
 * answers (the React layer's).
 */
export function governFormsOf(w: ClientState, options: Omit<GovernFormsOptions, 'client'>, scopeOf: () => number): GovernedForms {
  if (options === null || typeof options !== 'object') throw new ConfigurationError('invalid_options', 'governForms options must be an object');
  const doc = (globalThis as { document?: Document }).document;
  const root = options.root ?? doc;
  if (root === undefined) return { stop() {} };
  if (typeof (root as Node).getRootNode !== 'function') throw new ConfigurationError('invalid_options', 'governForms: root must be a document, an element or a shadow root', 'root');
  const listenOn = (root as Node).getRootNode();
  const tools = new WeakMap<HTMLFormElement, { key: string; tool: WebMCPTool }>();
  const onSubmit = (event: Event) => {
    const submit = event as AgentSubmitEvent;
    const form = submit.target as HTMLFormElement | null;
    if (ours.has(event) || submit.agentInvoked !== true || form === null || typeof form.getAttribute !== 'function') return;
    const name = form.getAttribute('toolname');
    if (name === null || form.tagName !== 'FORM' || !(root as Node).contains(form)) return;
    // Held: nothing else sees it, and its answer is the governed call's.
    event.preventDefault();
    event.stopImmediatePropagation();
    const answer = governed(w, options, scopeOf, tools, form, name, submit.submitter);
    try {
      submit.respondWith?.(answer);
    } catch {
      // The runtime refused the answer: the agent reads its error, and nothing was submitted.
    }
  };
  listenOn.addEventListener('submit', onSubmit, true);
  return { stop: () => listenOn.removeEventListener('submit', onSubmit, true) };
}

/** The governed call of one agent submit: what the agent reads (never rejects). */
async function governed(
  w: ClientState,
  options: Omit<GovernFormsOptions, 'client'>,
  scopeOf: () => number,
  tools: WeakMap<HTMLFormElement, { key: string; tool: WebMCPTool }>,
  form: HTMLFormElement,
  name: string,
  submitter: HTMLElement | null,
): Promise<unknown> {
  const runtime = getModelContext();
  const controller = new AbortController();
  // An agent that cancels its call (`toolcancel`) aborts the governed call.
  const onCancel = (event: Event) => {
    if ((event as Event & { toolName?: unknown }).toolName === name) controller.abort();
  };
  const events = runtime as unknown as EventTarget | undefined;
  events?.addEventListener?.('toolcancel', onCancel);
  try {
    // The form's schema as the runtime derived it and shows the agent (the runtime adapter reads
    // every shape of getTools(), in a chunk of its own).
    const { toolsOf } = await import('../runtime/runtime-shapes.js');
    const listed = (await toolsOf(runtime)).find((tool) => tool.name === name);
    const inputSchema = listed?.inputSchema ?? { type: 'object' };
    const properties = (inputSchema as { properties?: Properties }).properties;
    const definition = { name, description: form.getAttribute('tooldescription') ?? listed?.description ?? '', inputSchema };
    const title = form.getAttribute('tooltitle');
    const key = JSON.stringify([definition, title]);
    let entry = tools.get(form);
    if (entry === undefined || entry.key !== key) {
      // The form's tool: the same pipeline as webmcp()'s; its function submits the form.
      const tool = createTool(
        w,
        (input: Record<string, unknown>, { signal }: { signal: AbortSignal }) => {
          signal.throwIfAborted();
          writeFields(form, properties, input);
          return submitAgain(form, submitters.get(form) ?? null);
        },
        { ...definition, ...(title === null ? {} : { title }), hooks: options.hooks, server: options.server, annotations: options.annotations, shape: options.shape },
      );
      tools.set(form, (entry = { key, tool }));
    }
    const record = recordOf(entry.tool);
    if (!isVisible(w, record)) return toWireResult(unknownToolOutcome(name).result);
    submitters.set(form, submitter);
    const outcome = await runCall(w, record, readFields(form, properties), { signal: controller.signal }, scopeOf());
    return toWireResult(outcome.result);
  } catch (err) {
    // A form whose name or definition cannot be a tool: it does not submit.
    return toWireResult(failedOutcome('tool', 'invalid_tool', `Tool "${name}" could not be governed: ${err instanceof Error ? err.message : String(err)}`).result);
  } finally {
    events?.removeEventListener?.('toolcancel', onCancel);
  }
}

/** The submitter of each form's governed submit in progress. */
const submitters = new WeakMap<HTMLFormElement, HTMLElement | null>();

/** The form's named fields, each as the schema (or, without one, its control) types it. */
function namedFields(form: HTMLFormElement): HTMLInputElement[] {
  return (Array.from(form.elements) as HTMLInputElement[]).filter((el) => el.name && !el.disabled && !/^(submit|button|reset|image|file)$/.test(el.type));
}

/** The arguments the agent filled in: the form's fields, typed as the form's schema says. */
function readFields(form: HTMLFormElement, properties: Properties): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const el of namedFields(form)) {
    const name = el.name;
    if (properties !== undefined && !Object.hasOwn(properties, name)) continue;
    const type = properties?.[name]?.type;
    if (type === 'boolean' || (type === undefined && el.type === 'checkbox')) input[name] = el.checked;
    else if (el.type === 'radio') {
      if (el.checked) input[name] = el.value;
    } else if (el.tagName === 'SELECT' && (el as unknown as HTMLSelectElement).multiple) {
      input[name] = Array.from((el as unknown as HTMLSelectElement).selectedOptions, (option) => option.value);
    } else if (el.value !== '') {
      const number = type === 'number' || type === 'integer' || (type === undefined && (el.type === 'number' || el.type === 'range'));
      input[name] = number && el.value.trim() !== '' && Number.isFinite(Number(el.value)) ? Number(el.value) : el.value;
    }
  }
  return input;
}

/** Writes the final arguments into the form's fields (the ones its schema has; others untouched). */
function writeFields(form: HTMLFormElement, properties: Properties, input: Record<string, unknown>): void {
  for (const el of namedFields(form)) {
    const name = el.name;
    if (properties !== undefined && !Object.hasOwn(properties, name)) continue;
    const value = Object.hasOwn(input, name) ? input[name] : undefined;
    if (el.type === 'checkbox') el.checked = value === true || (typeof value === 'string' && value === el.value);
    else if (el.type === 'radio') el.checked = value !== undefined && String(value) === el.value;
    else if (el.tagName === 'SELECT' && (el as unknown as HTMLSelectElement).multiple) {
      const chosen = Array.isArray(value) ? value.map(String) : [];
      for (const option of Array.from((el as unknown as HTMLSelectElement).options)) option.selected = chosen.includes(option.value);
    } else el.value = value === undefined || value === null ? '' : String(value);
  }
}

/**
 * The approved submit: dispatched once more to the page's listeners, which answer with
 * `respondWith` (the tool's result, or its failure); one that no listener prevented submits the
 * form as a browser would (navigating).
 */
async function submitAgain(form: HTMLFormElement, submitter: HTMLElement | null): Promise<unknown> {
  const event = new SubmitEvent('submit', { bubbles: true, cancelable: true, submitter });
  let answer: Promise<unknown> | undefined;
  let dispatching = true;
  Object.defineProperties(event, {
    agentInvoked: { value: true },
    respondWith: {
      value: (given: unknown) => {
        if (!dispatching || answer !== undefined) throw new DOMException('respondWith() may be called once, while the submit event is dispatched', 'InvalidStateError');
        event.preventDefault();
        answer = Promise.resolve(given);
      },
    },
  });
  ours.add(event);
  let proceed: boolean;
  try {
    proceed = form.dispatchEvent(event);
  } finally {
    dispatching = false;
  }
  if (answer !== undefined) return await answer;
  if (!proceed) throw new Error("the page called preventDefault() on the submit event without respondWith() with the tool's result");
  navigate(form, submitter);
  return 'The form was submitted.';
}

/** Submits `form` as its submitter would (its name and value, its `form*` overrides), without another submit event. */
function navigate(form: HTMLFormElement, submitter: HTMLElement | null): void {
  const restore: (() => void)[] = [];
  const button = submitter as HTMLButtonElement | null;
  if (button?.name) {
    const carried = form.ownerDocument.createElement('input');
    carried.type = 'hidden';
    carried.name = button.name;
    carried.value = button.value;
    form.appendChild(carried);
    restore.push(() => carried.remove());
  }
  for (const attribute of ['action', 'method', 'enctype', 'target', 'novalidate']) {
    const override = button?.getAttribute?.(`form${attribute}`);
    if (override === null || override === undefined) continue;
    const before = form.getAttribute(attribute);
    form.setAttribute(attribute, override);
    restore.push(() => (before === null ? form.removeAttribute(attribute) : form.setAttribute(attribute, before)));
  }
  try {
    HTMLFormElement.prototype.submit.call(form);
  } finally {
    for (const undo of restore.reverse()) undo();
  }
}
