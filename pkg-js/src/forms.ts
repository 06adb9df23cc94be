// webmcp-warden/forms: governed declarative tools (`<form toolname>`), an entry of its own; the
// code is `api/forms.ts`, which the React layer's `useWebMCPForm` imports too.
export * from './api/forms.js';
