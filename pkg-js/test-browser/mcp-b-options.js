// Runs before mcp-b-page.js: MCP-B (@mcp-b/global) initializes only when a scenario calls
// initializeWebModelContext(), so each scenario chooses the order of MCP-B and the tools.
window.__webModelContextOptions = { autoInitialize: false };
