import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  // Keep the package out of dependency pre-bundling so its module files (and any wasm they
  // load relative to import.meta.url) stay where they are.
  optimizeDeps: { exclude: ['webmcp-warden'] },
  // The package embeds its wasm modules (base64) in its JS, so two chunks are large by design:
  // the app chunk holds the core (~0.65 MB), and the JSON Schema validator (~190 KB) is a chunk
  // of its own that the page fetches only when a tool with a JSON Schema is first called.
  build: { chunkSizeWarningLimit: 3500 },
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 5173 },
});
