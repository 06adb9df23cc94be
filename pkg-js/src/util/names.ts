// The tool-name rule, in one place for the package and its testing fake (a module of its own so
// that `webmcp-warden/testing` does not pull in the tool machinery to read one pattern).

/** The tool-name rule: 1–128 characters of `[A-Za-z0-9_.-]` (the WebMCP draft's). */
export const TOOL_NAME_RULE: RegExp = /^[A-Za-z0-9_.-]{1,128}$/;
