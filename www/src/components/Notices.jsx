import { useSyncExternalStore } from 'react';
import { dismissNotice, noticeStore } from '../warden.js';

/** Fed by the provider's scoped `denied` hook: the person sees when an agent was refused. */
export function Notices() {
  const notices = useSyncExternalStore(noticeStore.subscribe, noticeStore.get);
  return (
    <div className="notices" aria-live="polite">
      {notices.map((n) => (
        <div key={n.id} className="notice" data-testid="notice" role="status">
          <strong>Agent refused:</strong> <code>{n.tool}</code> — {n.reason}
          <button type="button" className="btn-link" aria-label="Dismiss" onClick={() => dismissNotice(n.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
