// useWebMCPForm(): a `<form toolname>` governed while the component is mounted, under the
// component's client and provider (its hooks and approver apply). A ref callback: React hands it
// the form when it mounts and `null` when it goes.
import { useCallback, useContext, useRef } from 'react';
import { governFormsOf, type GovernFormsOptions, type GovernedForms } from '../api/forms.js';
import { ScopeContext, clientStateOf } from './context.js';
import { resolveScope } from './scope.js';

/** Options of {@link useWebMCPForm}: {@link GovernFormsOptions} without `root` and `client`. */
export type UseWebMCPFormOptions = Omit<GovernFormsOptions, 'root' | 'client'>;

/**
 * Governs the `<form toolname="…" tooldescription="…">` this returns a ref for: an agent's submit
 * runs the governed pipeline (docs/runtimes.md, "Declarative forms"); a user's own submit is
 * untouched. The options are read when the form mounts.
 *
 * @example
 * const ref = useWebMCPForm();
 * return <form ref={ref} toolname="search_flights" tooldescription="Search flights">…</form>;
 */
export function useWebMCPForm(options: UseWebMCPFormOptions = {}): (form: HTMLFormElement | null) => void {
  const context = useContext(ScopeContext);
  const latest = useRef({ context, options });
  latest.current = { context, options };
  const governed = useRef<GovernedForms | undefined>(undefined);
  return useCallback((form: HTMLFormElement | null) => {
    governed.current?.stop();
    governed.current = undefined;
    if (form === null) return;
    const { context: now, options: given } = latest.current;
    governed.current = governFormsOf(clientStateOf(now), { ...given, root: form }, () => resolveScope(latest.current.context.handle));
  }, []);
}
