import { useSyncExternalStore } from 'react';
import { isWebMCPSupported } from 'webmcp-warden';
import { WebMCPProvider } from 'webmcp-warden/react';
import { AgentConsole } from './components/AgentConsole.jsx';
import { ApprovalDialog } from './components/ApprovalDialog.jsx';
import { Cart } from './components/Cart.jsx';
import { Catalogue } from './components/Catalogue.jsx';
import { DecisionLog } from './components/DecisionLog.jsx';
import { Notices } from './components/Notices.jsx';
import { PolicyPanel } from './components/PolicyPanel.jsx';
import { ToolsPanel } from './components/ToolsPanel.jsx';
import { TracePanel } from './components/TracePanel.jsx';
import { auditStore, SHOP_SCOPE_HOOKS } from './warden.js';

export function App() {
  const audit = useSyncExternalStore(auditStore.subscribe, auditStore.get);
  const native = isWebMCPSupported();
  return (
    // Every tool below is mounted (registered) inside this provider, so its scoped hooks apply
    // to them, and `approver` sends their asks to <ApprovalDialog> through useApprovals().
    <WebMCPProvider hooks={SHOP_SCOPE_HOOKS} approver>
      <header className="topbar">
        <div className="brand">
          <span className="logo" aria-hidden="true">◆</span>
          <div>
            <h1>Kettle &amp; Co.</h1>
            <p className="tagline">A demo shop whose agent tools are governed by <code>webmcp-warden</code></p>
          </div>
        </div>
        <div className="pills">
          <span className={`pill ${native ? 'pill-ok' : 'pill-muted'}`} data-testid="webmcp-support">
            {native ? 'WebMCP: native' : 'WebMCP: not in this browser (use the agent console)'}
          </span>
          <span className="pill" data-testid="audit-count" title="Calls seen by the global audit hook">
            audit trail: {audit.length}
          </span>
        </div>
      </header>

      <main className="layout">
        <div className="col-main">
          <Catalogue />
          <Cart />
          <AgentConsole />
          <div className="row-2">
            <ToolsPanel />
            <PolicyPanel />
          </div>
          <TracePanel />
        </div>
        <aside className="col-side">
          <DecisionLog />
        </aside>
      </main>

      <ApprovalDialog />
      <Notices />
    </WebMCPProvider>
  );
}
