import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

export default defineConfig({
  plugins: [react()],
  // Keep the package out of dependency pre-bundling so its module files (and any wasm they
  // load relative to import.meta.url) stay where they are.
  optimizeDeps: { exclude: ['webmcp-warden'] },
  // The package embeds its wasm core (base64) in its JS, so the app chunk is large by design.
  build: { chunkSizeWarningLimit: 1024 },
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 5173 },
});
