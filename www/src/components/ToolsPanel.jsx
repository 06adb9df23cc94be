import { useWebMCP } from 'webmcp-warden/react';
import { TOOLS } from '../tools.js';

const HINTS = [
  ['readOnlyHint', 'read-only', 'hint-read'],
  ['untrustedContentHint', 'untrusted output', 'hint-untrusted'],
  ['consequentialHint', 'consequential', 'hint-consequential'],
  ['destructiveHint', 'destructive', 'hint-destructive'],
];

/** Mounting a row registers its tool (useWebMCP); unmounting unregisters it. */
function ToolRow({ tool }) {
  const { status, error } = useWebMCP(tool);
  const annotations = tool.definition.annotations ?? {};
  return (
    <tr data-testid={`tool-${tool.toolName}`}>
      <td>
        <code className="tool-name">{tool.toolName}</code>
      </td>
      <td>
        {HINTS.filter(([key]) => annotations[key]).map(([key, label, cls]) => (
          <span key={key} className={`chip ${cls}`}>
            {label}
          </span>
        ))}
      </td>
      <td className="num">
        <span className={`status status-${status}`} data-testid={`tool-status-${tool.toolName}`} title={error ? String(error.message ?? error) : undefined}>
          {status}
        </span>
      </td>
    </tr>
  );
}

export function ToolsPanel() {
  return (
    <section className="panel" aria-labelledby="tools-title">
      <div className="panel-head">
        <h2 id="tools-title">Tools</h2>
        <span className="hint">server <code>shop</code></span>
      </div>
      <table className="tools" data-testid="tools">
        <tbody>
          {TOOLS.map((tool) => (
            <ToolRow key={tool.toolName} tool={tool} />
          ))}
        </tbody>
      </table>
    </section>
  );
}
