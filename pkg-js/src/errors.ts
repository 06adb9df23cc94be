// Errors thrown for misuse. Call outcomes are data, never thrown.

/** Base class of every error webmcp-warden throws. `code` is stable and machine-readable. */
export class WardenError extends Error {
  /** A stable machine code, such as `invalid_hook` or `duplicate_hook_id`. */
  readonly code: string;

  constructor(code: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    // The package's classes carry their names as literals on their prototypes (a production
    // build renames classes: `new.target.name` read `R`); a page's own subclass is named after itself.
    const proto = new.target.prototype as Error;
    this.name = Object.prototype.hasOwnProperty.call(proto, 'name') ? proto.name : new.target.name;
    this.code = code;
  }

  static {
    this.prototype.name = 'WardenError';
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

  static {
    this.prototype.name = 'ConfigurationError';
  }
}

/** The browser rejected a registration; `cause` is the browser's error. */
export class RegistrationError extends WardenError {
  static {
    this.prototype.name = 'RegistrationError';
  }
}

/** WebMCP is not available here. */
export class NotSupportedError extends WardenError {
  static {
    this.prototype.name = 'NotSupportedError';
  }
}

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

  static {
    this.prototype.name = 'CallFailure';
  }
}

/** A `{ code, message, path }` answer from the core, thrown as a ConfigurationError. */
export function configurationError(error: { code: string; message: string; path?: string }): ConfigurationError {
  return new ConfigurationError(error.code, error.message, error.path);
}
