'use client';
// webmcp-warden/react: the React layer (WebMCPProvider, useWebMCP, useApprovals) lands with
// its own issue; the entry point exists so imports resolve and bundlers can see it.

/** The version of the React layer's API; the hooks are not shipped yet. */
export const REACT_LAYER_VERSION = 0;
