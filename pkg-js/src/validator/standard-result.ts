// What a Standard Schema's `validate` answered, as the pipeline reads it (validation.ts says when
// this chunk loads): the validated value, or its issues as diagnostics. It imports nothing of the
// package at run time.
import type { StandardValidated } from '../types/internal.js';
import type { Diagnostic } from '../types/types.js';

/** `validate`'s answer: `{ value }`, `{ issues }`, or (anything else, or a throw reading it) fail closed. */
export function standardResult(result: unknown): StandardValidated {
  try {
    const issues = result !== null && typeof result === 'object' ? (result as { issues?: unknown }).issues : undefined;
    if (Array.isArray(issues) && issues.length > 0) return { how: 'value', valid: false, diagnostics: issues.map(diagnosticOfIssue) };
    if (result === null || typeof result !== 'object' || !('value' in result)) {
      return { how: 'value', valid: false, diagnostics: [{ path: '', keyword: 'standard', message: 'could not be validated: the validator returned neither a value nor issues' }] };
    }
    return { how: 'value', valid: true, value: (result as { value: unknown }).value };
  } catch (err) {
    return { how: 'threw', thrown: err };
  }
}

/** A Standard Schema issue (`{ message, path? }`) as a diagnostic, whatever the vendor put in it. */
function diagnosticOfIssue(issue: unknown): Diagnostic {
  const { message, path } = (issue !== null && typeof issue === 'object' ? issue : {}) as { message?: unknown; path?: unknown };
  return { path: pointerOf(path), keyword: 'standard', message: typeof message === 'string' && message !== '' ? message : 'is invalid' };
}

function pointerOf(path: unknown): string {
  if (!Array.isArray(path)) return '';
  return path
    .map((segment) => {
      const key = segment !== null && typeof segment === 'object' && 'key' in segment ? (segment as { key: unknown }).key : segment;
      return '/' + escapePointer(String(key));
    })
    .join('');
}

function escapePointer(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

