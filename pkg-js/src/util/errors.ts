// Errors thrown for misuse. Call outcomes are data, never thrown.

/** Base class of every error webmcp-warden throws. `code` is stable and machine-readable. */
export class WardenError extends Error {
  /** A stable machine code, such as `invalid_hook` or `duplicate_hook_id`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    // No `this.name = new.target.name`: a production build renames classes (it read `R`). Each
    // class carries its name as a literal on its prototype (below), as `Error` does.
    this.code = code;
  }
}

/**
 * Bad configuration: an invalid hook entry, matcher, tool name or policy. Thrown when the
 * configuration is given (`webmcp()`, `configureWebMCP()`, provider mount), not at the first call.
 */
export class ConfigurationError extends WardenError {
  /** Where the problem is, such as `hooks.before[1]`, when known. */
  readonly path: string | undefined;

  constructor(code: string, message: string, path?: string) {
    super(code, message);
    this.path = path;
  }
}

/** The browser rejected a registration; `cause` is the browser's error. */
export class RegistrationError extends WardenError {}

/** WebMCP is not available here. */
export class NotSupportedError extends WardenError {}

/**
 * What error hooks see as `ctx.error` when the call failed for a reason other than the tool
 * throwing (a failed hook, an abort, a denial). Never carries what a hook threw.
 */
export class CallFailure extends WardenError {
  /** `hook | validation | denied | tool | aborted | not_found`. */
  readonly kind: string;
  /** The finer reason. */
  readonly reason: string;
  /** The hook that decided, when one did. */
  readonly hookId: string | undefined;

  constructor(kind: string, reason: string, message: string, hookId?: string) {
    super(reason, message);
    this.kind = kind;
    this.reason = reason;
    this.hookId = hookId;
  }
}

// The names as literals (object keys survive minification; class names do not).
for (const [name, Class] of Object.entries({ WardenError, ConfigurationError, RegistrationError, NotSupportedError, CallFailure })) Class.prototype.name = name;

/** A `{ code, message, path }` answer from the core, thrown as a ConfigurationError. */
export function configurationError(error: { code: string; message: string; path?: string }): ConfigurationError {
  return new ConfigurationError(error.code, error.message, error.path);
}
