/**
 * `webmcp-warden/testing`: a spec-faithful fake of the browser's `document.modelContext`
 * (the W3C WebMCP draft's `ModelContext`), for tests that run in Node or in a browser
 * without native WebMCP.
 *
 * It honours the draft's rules that real pages trip over and that hand-written mocks
 * usually miss: registration validation (`InvalidStateError`), stringified schemas,
 * abort-signal unregistration (and the rejection of a registration aborted before it
 * settles), `toolchange` / `toolactivated` / `toolcancel` events, JSON round trips of
 * inputs and results, `UnknownError` for failures, and per-call cancellation that
 * unregistering does not touch.
 *
 * It has no dependencies and needs only what Node 20 has globally (`EventTarget`,
 * `Event`, `DOMException`, `AbortController`, `setTimeout`).
 *
 * @packageDocumentation
 */

import { TOOL_NAME_RULE } from './util/names.js';

/** The tool-name rule of the WebMCP draft: 1–128 characters of `[A-Za-z0-9_.-]`. */
export const TOOL_NAME_PATTERN: RegExp = TOOL_NAME_RULE;

/**
 * Annotations a page may attach to a tool. Like the WebMCP draft and Chrome 156, the fake
 * keeps only the draft's members (see {@link TOOL_ANNOTATION_MEMBERS}), each defaulting to
 * `false`; other members (MCP's `destructiveHint`, …) are dropped from what `getTools()`
 * reports.
 */
export interface FakeToolAnnotations {
  /** The tool does not change state. */
  readOnlyHint?: boolean;
  /** The tool's output may contain untrusted (user-generated or third-party) content. */
  untrustedContentHint?: boolean;
  /** The tool has significant, real-world or irreversible effects. */
  consequentialHint?: boolean;
  /** Any other annotation member (MCP hints, `title`, `debugging`, …). */
  [key: string]: unknown;
}

/** Options the fake passes to a tool's `execute` callback (`ToolExecuteCallbackOptions`). */
export interface FakeExecuteOptions {
  /** Aborted when the caller cancels this execution. */
  signal: AbortSignal;
}

/** A tool's `execute` callback: `execute(inputObject, { signal })`. */
export type FakeToolExecute = (input: any, options: FakeExecuteOptions) => unknown;

/** The tool dictionary given to {@link FakeModelContext.registerTool} (`ModelContextTool`). */
export interface FakeToolDescriptor {
  /** 1–128 characters of `[A-Za-z0-9_.-]`, unique within the document. */
  name: string;
  /** Human-readable label; `getTools()` reports `''` when absent. */
  title?: string;
  /** Non-empty description for the model. */
  description: string;
  /** JSON Schema object for the input; stringified at registration. */
  inputSchema?: object;
  /** JSON Schema object for `structuredContent` (Chrome 159+); stringified at registration. */
  outputSchema?: object;
  /** Tool annotations; reported by `getTools()` (normalized) only when given. */
  annotations?: FakeToolAnnotations;
  /** Called for each execution. */
  execute: FakeToolExecute;
}

/** Options of {@link FakeModelContext.registerTool}. */
export interface FakeRegisterToolOptions {
  /** Aborting it unregisters the tool (the only way to unregister in the draft). */
  signal?: AbortSignal;
  /** Accepted for API compatibility; ignored by the fake (single document). */
  exposedTo?: string[];
}

/** Options of {@link FakeModelContext.executeTool} and {@link FakeModelContext.callTool}. */
export interface FakeExecuteToolOptions {
  /** Aborting it cancels the execution: the call rejects with the signal's reason. */
  signal?: AbortSignal;
}

/** A tool as `getTools()` reports it (`RegisteredTool`): a parsed, independent copy. */
export interface RegisteredToolInfo {
  /** The tool's name. */
  name: string;
  /** The tool's title, `''` when none was given. */
  title: string;
  /** The tool's description. */
  description: string;
  /** The parsed input schema; absent when none was given. */
  inputSchema?: Record<string, unknown>;
  /** The parsed output schema; absent when none was given. */
  outputSchema?: Record<string, unknown>;
  /**
   * The annotations normalized to the draft's members (missing ones `false`, others
   * dropped); absent when none were given.
   */
  annotations?: FakeToolAnnotations;
  /** The origin of the document that registered the tool. */
  origin: string;
}

/** Options of {@link FakeModelContext}'s constructor and {@link createFakeModelContext}. */
export interface FakeModelContextOptions {
  /**
   * The origin reported for registered tools. Default: `globalThis.location.origin` when
   * it is a real origin, else `'http://localhost'`.
   */
  origin?: string;
  /**
   * Which WebMCP the fake is: `'draft'` (default: the W3C draft, as Chromium ships it) or
   * `'firefox'` (Firefox's and Chrome's first previews): `registerTool(tool)` is synchronous,
   * answers `undefined`, throws its errors and never reads a signal; `unregisterTool(name)`
   * removes a tool; `execute` is called as `execute(input, client)`; and
   * {@link installFakeModelContext} installs it as `navigator.modelContext`.
   */
  shape?: 'draft' | 'firefox';
  /** `1`: `execute` is called with the input only, as MCP-B's polyfill does. Default `2`. */
  executeArity?: 1 | 2;
  /**
   * `true`: `getTools()` answers instances of {@link FakeTool}, as Chrome 160 does: members are
   * getters (spreading and `JSON.stringify` copy nothing) and empty ones are `null`.
   */
  toolObjects?: boolean;
  /**
   * `true`: `registerTool` rejects with a `TypeError` for a schema using a keyword a proposed
   * revision of the draft leaves out of the allowed subset ({@link REFUSABLE_SCHEMA_KEYWORDS}).
   */
  refuseSchemaKeywords?: boolean;
}

/** Keywords a proposed revision of the WebMCP draft has `registerTool` refuse in schemas. */
export const REFUSABLE_SCHEMA_KEYWORDS: readonly string[] = [
  '$ref', '$defs', 'definitions', 'format', 'unevaluatedProperties', 'dependentRequired', 'dependentSchemas', 'contentEncoding', 'contentMediaType',
];

/** Keywords whose value is one schema, a map of schemas, or a list of schemas. */
const SUBSCHEMA_ONE = ['additionalProperties', 'propertyNames', 'additionalItems', 'contains', 'not', 'if', 'then', 'else', 'unevaluatedItems', 'unevaluatedProperties', 'contentSchema', 'items'];
const SUBSCHEMA_MAP = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SUBSCHEMA_LIST = ['allOf', 'anyOf', 'oneOf', 'prefixItems', 'items'];

/** The first refusable keyword of `schema` where keywords are (not property names), or `undefined`. */
function refusableKeyword(schema: unknown, depth = 0): string | undefined {
  if (schema === null || typeof schema !== 'object' || Array.isArray(schema) || depth > 256) return undefined;
  const s = schema as Record<string, unknown>;
  for (const key of Object.keys(s)) if (REFUSABLE_SCHEMA_KEYWORDS.includes(key)) return key;
  for (const [key, value] of Object.entries(s)) {
    const children = Array.isArray(value) && SUBSCHEMA_LIST.includes(key) ? value : SUBSCHEMA_ONE.includes(key) && !Array.isArray(value) ? [value] : SUBSCHEMA_MAP.includes(key) && value !== null && typeof value === 'object' ? Object.values(value) : [];
    for (const child of children) {
      const found = refusableKeyword(child, depth + 1);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/**
 * A tool as Chrome 160's `getTools()` answers it (the `Tool` interface): every member a getter
 * on the prototype, so `{ ...tool }` and `JSON.stringify(tool)` copy nothing, and
 * `inputSchema`, `outputSchema` and `annotations` are `null` when the tool has none. `source`
 * is what `window` was.
 */
export class FakeTool {
  readonly #info: RegisteredToolInfo;
  /** @param info - the tool as the draft's dictionary has it */
  constructor(info: RegisteredToolInfo) {
    this.#info = info;
  }
  /** The tool's name. */
  get name(): string {
    return this.#info.name;
  }
  /** The tool's title (`''` when none). */
  get title(): string {
    return this.#info.title;
  }
  /** The tool's description. */
  get description(): string {
    return this.#info.description;
  }
  /** The parsed input schema, or `null`. */
  get inputSchema(): Record<string, unknown> | null {
    return this.#info.inputSchema ?? null;
  }
  /** The parsed output schema, or `null`. */
  get outputSchema(): Record<string, unknown> | null {
    return this.#info.outputSchema ?? null;
  }
  /** The annotations, or `null`. */
  get annotations(): FakeToolAnnotations | null {
    return this.#info.annotations ?? null;
  }
  /** The registering document's origin. */
  get origin(): string {
    return this.#info.origin;
  }
  /** The registering window (`globalThis` here). */
  get source(): unknown {
    return globalThis;
  }
}

/** The `toolactivated` event: fired before a tool's `execute` is called. */
export class ToolActivatedEvent extends Event {
  /** The name of the tool being executed. */
  readonly toolName: string;
  /**
   * @param type - the event type (`'toolactivated'`)
   * @param init - `{ toolName }`, default `''`
   */
  constructor(type: string, init: { toolName?: string } = {}) {
    super(type);
    this.toolName = init.toolName ?? '';
  }
}

/** The `toolcancel` event: fired when the caller aborts a running execution. */
export class ToolCancelEvent extends Event {
  /** The name of the tool whose execution was cancelled. */
  readonly toolName: string;
  /**
   * @param type - the event type (`'toolcancel'`)
   * @param init - `{ toolName }`, default `''`
   */
  constructor(type: string, init: { toolName?: string } = {}) {
    super(type);
    this.toolName = init.toolName ?? '';
  }
}

/** Internal record of one live registration. */
interface Registration {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly inputSchema: string | undefined;
  readonly outputSchema: string | undefined;
  readonly annotations: string | undefined;
  readonly execute: FakeToolExecute;
  /** Removes this registration (as an abort of its signal would), with `reason`. */
  readonly abort: (reason: unknown) => void;
}

type EventHandler = ((this: FakeModelContext, ev: Event) => unknown) | null;

function invalidState(message: string): DOMException {
  return new DOMException(message, 'InvalidStateError');
}

function unknownError(message: string): DOMException {
  return new DOMException(message, 'UnknownError');
}

function isObject(value: unknown): value is object {
  return (typeof value === 'object' && value !== null) || typeof value === 'function';
}

/** JSON.stringify that throws a TypeError (like the draft's infra algorithm) on `undefined`. */
function stringifyStrict(value: unknown, what: string): string {
  const text = JSON.stringify(value);
  if (typeof text !== 'string') {
    throw new TypeError(`${what} cannot be serialized to JSON`);
  }
  return text;
}

function defaultOrigin(): string {
  const loc = (globalThis as { location?: { origin?: unknown } }).location;
  const origin = loc?.origin;
  if (typeof origin === 'string' && origin !== '' && origin !== 'null') return origin;
  return 'http://localhost';
}

function defer(fn: () => void): void {
  setTimeout(fn, 0);
}

/**
 * A spec-faithful fake of `document.modelContext` (WebMCP draft `ModelContext`), plus
 * test helpers (`listTools`, `callTool`, `waitForToolChange`, `abortRegistration`,
 * `registeredNames`).
 *
 * Events: `toolchange` (after each registration and unregistration), `toolactivated`
 * ({@link ToolActivatedEvent}, before `execute` runs) and `toolcancel`
 * ({@link ToolCancelEvent}, when a caller aborts an activated execution). The
 * `ontoolchange`, `ontoolactivated` and `ontoolcancel` handler properties work too.
 */
export class FakeModelContext extends EventTarget {
  /** The origin reported as `origin` by {@link FakeModelContext.getTools}. */
  readonly origin: string;

  /** Event handler property for `toolchange`. */
  ontoolchange: EventHandler = null;
  /** Event handler property for `toolactivated`. */
  ontoolactivated: EventHandler = null;
  /** Event handler property for `toolcancel`. */
  ontoolcancel: EventHandler = null;

  readonly #tools = new Map<string, Registration>();
  readonly #options: FakeModelContextOptions;

  /**
   * @param options - `{ origin, shape, executeArity, toolObjects, refuseSchemaKeywords }`
   */
  constructor(options: FakeModelContextOptions = {}) {
    super();
    this.#options = { ...options };
    this.origin = options.origin ?? defaultOrigin();
    if (options.shape === 'firefox') {
      // Firefox's shape: a synchronous registerTool that never reads a signal, and unregisterTool.
      const register = (tool: FakeToolDescriptor): undefined => {
        const settled = this.#register(tool, {});
        settled.catch(() => undefined);
        return undefined;
      };
      Object.defineProperty(this, 'registerTool', { value: register, configurable: true, writable: true });
      Object.defineProperty(this, 'unregisterTool', {
        configurable: true,
        writable: true,
        value: (name: string): undefined => {
          const registration = this.#tools.get(String(name));
          if (registration === undefined) throw invalidState(`No tool named "${String(name)}" is registered`);
          registration.abort(undefined);
          return undefined;
        },
      });
    }
    for (const type of ['toolchange', 'toolactivated', 'toolcancel'] as const) {
      this.addEventListener(type, (ev) => {
        const handler = this[`on${type}`];
        if (typeof handler === 'function') handler.call(this, ev);
      });
    }
  }

  /**
   * Registers a tool, as `document.modelContext.registerTool(tool, { signal })` does.
   *
   * Rejects with a `DOMException` named `InvalidStateError` for a duplicate name, a name
   * that fails {@link TOOL_NAME_PATTERN}, or an empty description; with a `TypeError` (as
   * WebIDL and Chrome do) when `name` or `description` is missing, `execute` is not a
   * function, or `inputSchema` / `outputSchema` is not an object or cannot be
   * JSON-stringified; with `signal.reason` when the signal is already aborted. The schemas
   * are stored stringified (later mutation of the given objects has no effect). Aborting the signal later removes the tool and fires
   * `toolchange`; if that happens before the returned promise settles, the promise
   * rejects with the abort reason. Otherwise the promise resolves in a later task, right
   * after the `toolchange` event for the registration has been dispatched.
   *
   * @param tool - the tool dictionary
   * @param options - `{ signal }`
   */
  registerTool(tool: FakeToolDescriptor, options: FakeRegisterToolOptions = {}): Promise<void> {
    try {
      return this.#register(tool, options ?? {});
    } catch (err) {
      return Promise.reject(err);
    }
  }

  #register(tool: FakeToolDescriptor, options: FakeRegisterToolOptions): Promise<void> {
    if (!isObject(tool)) throw new TypeError('registerTool: tool must be an object');
    // Required dictionary members (WebIDL): absent -> TypeError, as in Chrome.
    if (tool.name === undefined) throw new TypeError("registerTool: the tool's 'name' is required");
    if (tool.description === undefined) {
      throw new TypeError("registerTool: the tool's 'description' is required");
    }
    if (typeof tool.execute !== 'function') {
      throw new TypeError("registerTool: the tool's 'execute' must be a function");
    }
    const name = String(tool.name);
    if (!TOOL_NAME_PATTERN.test(name)) {
      throw invalidState(
        `Invalid tool name ${JSON.stringify(name)}: it must be 1-128 characters of [A-Za-z0-9_.-]`,
      );
    }
    const description = String(tool.description);
    if (description === '') throw invalidState(`Description is required (tool "${name}")`);
    const execute = tool.execute;
    const inputSchema = serializeSchema(tool.inputSchema, 'inputSchema');
    const outputSchema = serializeSchema(tool.outputSchema, 'outputSchema');
    if (this.#options.refuseSchemaKeywords) {
      for (const schema of [tool.inputSchema, tool.outputSchema]) {
        const keyword = refusableKeyword(schema);
        if (keyword !== undefined) throw new TypeError(`registerTool: the schema keyword "${keyword}" is not supported`);
      }
    }
    let annotations: string | undefined;
    if (tool.annotations !== undefined && tool.annotations !== null) {
      if (!isObject(tool.annotations)) throw new TypeError('registerTool: annotations must be an object');
      annotations = JSON.stringify(normalizeAnnotations(tool.annotations));
    }
    const title = tool.title === undefined || tool.title === null ? '' : String(tool.title);
    const signal = options.signal;
    if (signal !== undefined && signal !== null) {
      if (typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function') {
        throw new TypeError('registerTool: options.signal must be an AbortSignal');
      }
      if (signal.aborted) return Promise.reject(signal.reason);
    }
    if (this.#tools.has(name)) {
      throw invalidState(`Duplicate tool name "${name}"`);
    }

    let settled = false;
    let resolvePromise!: () => void;
    let rejectPromise!: (reason: unknown) => void;
    const promise = new Promise<void>((resolve, reject) => {
      resolvePromise = resolve;
      rejectPromise = reject;
    });

    const onAbort = (): void => registration.abort(signal?.reason);
    const registration: Registration = {
      name,
      title,
      description,
      inputSchema,
      outputSchema,
      annotations,
      execute,
      abort: (reason: unknown) => {
        signal?.removeEventListener('abort', onAbort);
        if (this.#tools.get(name) === registration) {
          this.#tools.delete(name);
          defer(() => this.dispatchEvent(new Event('toolchange')));
        }
        if (!settled) {
          settled = true;
          rejectPromise(reason);
        }
      },
    };
    this.#tools.set(name, registration);
    signal?.addEventListener('abort', onAbort, { once: true });

    defer(() => {
      if (settled) return;
      this.dispatchEvent(new Event('toolchange'));
      if (settled) return; // a toolchange listener aborted the registration
      settled = true;
      resolvePromise();
    });
    return promise;
  }

  /**
   * Lists the registered tools, as `document.modelContext.getTools()` does: parsed,
   * independent copies sorted by name in code-unit order, with `title` defaulting to `''`,
   * `inputSchema` / `outputSchema` / `annotations` present only when given, and `origin`.
   *
   * @param _options - `{ fromOrigins }`: accepted and ignored (single document)
   */
  async getTools(_options: { fromOrigins?: string[] } = {}): Promise<RegisteredToolInfo[]> {
    const names = [...this.#tools.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const listed = names.map((name) => {
      const reg = this.#tools.get(name)!;
      const info: RegisteredToolInfo = {
        name: reg.name,
        title: reg.title,
        description: reg.description,
        origin: this.origin,
      };
      if (reg.inputSchema !== undefined) info.inputSchema = JSON.parse(reg.inputSchema);
      if (reg.outputSchema !== undefined) info.outputSchema = JSON.parse(reg.outputSchema);
      if (reg.annotations !== undefined) info.annotations = JSON.parse(reg.annotations);
      return info;
    });
    return this.#options.toolObjects ? (listed.map((info) => new FakeTool(info)) as unknown as RegisteredToolInfo[]) : listed;
  }

  /**
   * Executes a registered tool, as `document.modelContext.executeTool(tool, inputObject,
   * { signal })` does, and resolves with the JSON string of its result.
   *
   * The input (an object, or, like Chrome ≤ 154, a JSON string; default `{}`) is JSON
   * round-tripped. In a later task, `toolactivated` fires and `execute(input, { signal })`
   * is called with a per-call signal. Rejections: the caller's `signal.reason` when it is
   * aborted (already, or later: then the per-call signal is aborted too, with an
   * `AbortError`, and `toolcancel` fires if the tool was activated); a `DOMException` named `UnknownError` when no tool
   * of that name is registered (or `tool.origin` differs), when the input is not a JSON
   * object, when `execute` throws or rejects, or when its result cannot be serialized
   * (including `undefined`); a `TypeError` when `tool` or the input has the wrong type, or
   * the serialization error of an input object JSON cannot carry. Unregistering a tool
   * does not cancel its running executions.
   *
   * @param tool - a tool from `getTools()`, or any `{ name }`
   * @param inputObject - the arguments object (or its JSON text)
   * @param options - `{ signal }`
   */
  executeTool(
    tool: { name: string; origin?: string },
    inputObject: object | string = {},
    options: FakeExecuteToolOptions = {},
  ): Promise<string | null> {
    try {
      return this.#execute(tool, inputObject, options ?? {});
    } catch (err) {
      return Promise.reject(err);
    }
  }

  #execute(
    tool: { name: string; origin?: string },
    inputObject: object | string,
    options: FakeExecuteToolOptions,
  ): Promise<string | null> {
    if (!isObject(tool) || typeof (tool as { name?: unknown }).name !== 'string') {
      throw new TypeError('executeTool: tool must be an object with a string name');
    }
    const callerSignal = options.signal ?? undefined;
    if (callerSignal !== undefined && callerSignal !== null && callerSignal.aborted) {
      return Promise.reject(callerSignal.reason);
    }
    // Serialize the input in the caller's realm (a serialization error rejects with it).
    let inputJson: string;
    if (typeof inputObject === 'string') {
      inputJson = inputObject; // Chrome <= 154 / MCP-B style: already JSON
    } else if (isObject(inputObject)) {
      inputJson = stringifyStrict(inputObject, 'executeTool: inputObject');
    } else {
      throw new TypeError('executeTool: inputObject must be an object');
    }
    const name = tool.name;
    const origin = (tool as { origin?: unknown }).origin;

    return new Promise<string | null>((resolve, reject) => {
      let settled = false;
      let activated = false;
      const controller = new AbortController();
      const finish = (fn: () => void): void => {
        if (settled) return;
        settled = true;
        callerSignal?.removeEventListener('abort', onCallerAbort);
        fn();
      };
      const onCallerAbort = (): void => {
        if (settled) return;
        const reason = callerSignal!.reason;
        finish(() => reject(reason));
        controller.abort(); // like Chrome: the callback's signal gets a plain AbortError
        if (activated) this.dispatchEvent(new ToolCancelEvent('toolcancel', { toolName: name }));
      };
      callerSignal?.addEventListener('abort', onCallerAbort, { once: true });

      // The target document runs the tool in a later task.
      defer(() => {
        if (settled) return;
        const reg = this.#tools.get(name);
        if (reg === undefined || (origin !== undefined && origin !== this.origin)) {
          finish(() => reject(unknownError(`executeTool: no tool named "${name}" is registered`)));
          return;
        }
        let input: unknown;
        try {
          input = JSON.parse(inputJson);
        } catch {
          finish(() => reject(unknownError('executeTool: failed to parse the input arguments')));
          return;
        }
        if (!isObject(input) || Array.isArray(input)) {
          finish(() => reject(unknownError('executeTool: the input arguments must be a JSON object')));
          return;
        }
        activated = true;
        this.dispatchEvent(new ToolActivatedEvent('toolactivated', { toolName: name }));
        if (settled) return; // a toolactivated listener aborted the call
        let returned: unknown;
        try {
          const shape = this.#options;
          returned =
            shape.executeArity === 1
              ? (reg.execute as (input: unknown) => unknown)(input)
              : shape.shape === 'firefox'
                ? (reg.execute as (input: unknown, client: unknown) => unknown)(input, { requestUserInteraction: async (callback: () => unknown) => callback() })
                : reg.execute(input, { signal: controller.signal });
        } catch {
          finish(() => reject(unknownError(`executeTool: tool "${name}" threw`)));
          return;
        }
        Promise.resolve(returned).then(
          (value) => {
            let text: string | undefined;
            try {
              text = JSON.stringify(value);
            } catch {
              text = undefined;
            }
            if (typeof text !== 'string') {
              finish(() => reject(unknownError(`executeTool: the result of tool "${name}" cannot be serialized to JSON`)));
              return;
            }
            const json = text;
            finish(() => resolve(json));
          },
          () => finish(() => reject(unknownError(`executeTool: tool "${name}" rejected`))),
        );
      });
    });
  }

  // ---------------------------------------------------------------------------------
  // Test helpers

  /** The parsed tool list: the same as {@link FakeModelContext.getTools}. */
  listTools(): Promise<RegisteredToolInfo[]> {
    return this.getTools();
  }

  /**
   * Finds the tool named `name`, executes it with `input` (default `{}`) and returns the
   * JSON-parsed result. Rejects like {@link FakeModelContext.executeTool} (an unknown
   * name rejects with `UnknownError`).
   *
   * @param name - the tool's name
   * @param input - the arguments object (or its JSON text)
   * @param options - `{ signal }`
   */
  async callTool(name: string, input: object | string = {}, options: FakeExecuteToolOptions = {}): Promise<any> {
    const tools = await this.getTools();
    const tool = tools.find((t) => t.name === name) ?? { name };
    const text = await this.executeTool(tool, input, options);
    return text === null ? null : JSON.parse(text);
  }

  /** Resolves at the next `toolchange` event. */
  waitForToolChange(): Promise<void> {
    return new Promise<void>((resolve) => {
      this.addEventListener('toolchange', () => resolve(), { once: true });
    });
  }

  /**
   * Removes the tool named `name` as if its registration signal had been aborted (with an
   * `AbortError` reason): fires `toolchange`, and a registration promise that has not
   * settled yet rejects. The page's own signal is not touched. Does nothing when no tool
   * of that name is registered.
   *
   * @param name - the tool's name
   */
  abortRegistration(name: string): void {
    this.#tools.get(name)?.abort(new DOMException('The registration was aborted.', 'AbortError'));
  }

  /** The names of the registered tools, sorted in code-unit order. */
  registeredNames(): string[] {
    return [...this.#tools.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }
}

/** The draft's `ToolAnnotations` members; each defaults to `false`, other members are dropped. */
export const TOOL_ANNOTATION_MEMBERS: readonly string[] = [
  'consequentialHint',
  'debugging',
  'readOnlyHint',
  'untrustedContentHint',
];

function normalizeAnnotations(given: object): FakeToolAnnotations {
  const out: FakeToolAnnotations = {};
  for (const key of TOOL_ANNOTATION_MEMBERS) {
    out[key] = Boolean((given as Record<string, unknown>)[key]);
  }
  return out;
}

function serializeSchema(schema: unknown, what: string): string | undefined {
  if (schema === undefined) return undefined;
  if (!isObject(schema) || typeof schema === 'function') {
    throw new TypeError(`registerTool: ${what} must be an object`);
  }
  return stringifyStrict(schema, `registerTool: ${what}`);
}

/**
 * Creates a {@link FakeModelContext} without installing it anywhere.
 *
 * @param options - `{ origin }`
 */
export function createFakeModelContext(options: FakeModelContextOptions = {}): FakeModelContext {
  return new FakeModelContext(options);
}

/** What {@link installFakeModelContext} returns. */
export interface InstalledFakeModelContext {
  /** The installed fake (also reachable as `document.modelContext`). */
  modelContext: FakeModelContext;
  /** Restores `document.modelContext` (and removes a `document` the install created). */
  uninstall(): void;
}

/**
 * Installs a fresh {@link FakeModelContext} as `globalThis.document.modelContext`. When
 * there is no `document` (Node), a plain `{}` is created for it and removed again by
 * `uninstall()`; otherwise `uninstall()` restores the previous `modelContext` property.
 *
 * @param options - `{ origin }`
 */
export function installFakeModelContext(options: FakeModelContextOptions = {}): InstalledFakeModelContext {
  if (options.shape === 'firefox') return installOnNavigator(options);
  const g = globalThis as { document?: unknown };
  const createdDocument = g.document === undefined || g.document === null;
  if (createdDocument) g.document = {};
  const doc = g.document as Record<string, unknown>;
  return installOn(doc, options, () => {
    if (g.document === doc) delete g.document;
  }, createdDocument);
}

/** Firefox's shape lives on `navigator.modelContext` (Node 21+ has a `navigator` of its own). */
function installOnNavigator(options: FakeModelContextOptions): InstalledFakeModelContext {
  const g = globalThis as { navigator?: unknown };
  const own = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  const createdNavigator = g.navigator === undefined || g.navigator === null;
  if (createdNavigator) Object.defineProperty(globalThis, 'navigator', { value: {}, configurable: true, writable: true });
  return installOn(g.navigator as Record<string, unknown>, options, () => {
    if (own !== undefined) Object.defineProperty(globalThis, 'navigator', own);
    else delete g.navigator;
  }, createdNavigator);
}

/**
 * Puts a fresh fake on `holder.modelContext`; `uninstall()` (once) removes the holder the install
 * created (`dropHolder`, when `created`), or else restores the `modelContext` it had.
 */
function installOn(holder: Record<string, unknown>, options: FakeModelContextOptions, dropHolder: () => void, created: boolean): InstalledFakeModelContext {
  const previous = Object.getOwnPropertyDescriptor(holder, 'modelContext');
  const modelContext = new FakeModelContext(options);
  Object.defineProperty(holder, 'modelContext', { value: modelContext, configurable: true, enumerable: true, writable: true });
  let installed = true;
  return {
    modelContext,
    uninstall(): void {
      if (!installed) return;
      installed = false;
      if (created) return dropHolder();
      if (previous !== undefined) Object.defineProperty(holder, 'modelContext', previous);
      else delete holder.modelContext;
    },
  };
}
