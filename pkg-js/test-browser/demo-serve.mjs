// Helpers shared by the demo test and the packaging tests (not a test file itself): a tiny static
// file server on 127.0.0.1 (port 0) with correct MIME types and optional extra headers, and the
// way we launch Debian's Chromium with native WebMCP.
import http from 'node:http';
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

export const chromiumPath = process.env.CHROMIUM || '/usr/bin/chromium';

export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--enable-features=WebMCP',
];

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ts': 'text/plain; charset=utf-8',
};

/**
 * Serves `root` on 127.0.0.1 at a free port. `headers` go on every response (a CSP, say).
 * A path that is a directory serves its index.html. Resolves to `{ server, url, requests }`, where
 * `requests` lists every path asked for (so a test can tell a lazily loaded chunk was fetched).
 */
export function startStaticServer(root, { headers = {} } = {}) {
  const base = path.resolve(root);
  const requests = [];
  const server = http.createServer((req, res) => {
    let rel;
    try {
      rel = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
      res.writeHead(400, headers).end();
      return;
    }
    requests.push(rel);
    let file = path.resolve(base, '.' + rel);
    if (file !== base && !file.startsWith(base + path.sep)) {
      res.writeHead(403, headers).end();
      return;
    }
    try {
      if (statSync(file).isDirectory()) file = path.join(file, 'index.html');
      if (!statSync(file).isFile()) throw new Error('not a file');
    } catch {
      res.writeHead(rel === '/favicon.ico' ? 204 : 404, { 'Content-Type': 'text/plain', ...headers }).end(rel === '/favicon.ico' ? undefined : 'not found');
      return;
    }
    res.writeHead(200, {
      'Content-Type': MIME[path.extname(file)] ?? 'application/octet-stream',
      'Cache-Control': 'no-store',
      ...headers,
    });
    res.end(readFileSync(file));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${server.address().port}`, requests }));
  });
}

export function stopServer(server) {
  return new Promise((resolve) => (server ? server.close(resolve) : resolve()));
}

/** Why a browser test cannot run here (a string for `skip`), or false. Under CI a missing browser is a failure instead. */
export function browserSkipReason() {
  if (existsSync(chromiumPath) || process.env.CI) return false;
  return `chromium not found at ${chromiumPath}: install it (apt-get install -y chromium, or WITH_BROWSER=1 scripts/setup.sh) to run the browser tests`;
}

/** Launches Chromium with native WebMCP (`{ nativeWebMCP: false }`: without it, as most browsers are today). */
export async function launchChromium({ nativeWebMCP = true } = {}) {
  if (!existsSync(chromiumPath)) throw new Error(`chromium is required but was not found at ${chromiumPath}`);
  const { chromium } = await import('playwright-core');
  const args = nativeWebMCP ? CHROMIUM_ARGS : CHROMIUM_ARGS.filter((arg) => arg !== '--enable-features=WebMCP');
  return chromium.launch({ executablePath: chromiumPath, args });
}

/** Collects uncaught page errors and console errors of a page. */
export function watchErrors(page) {
  const errors = { page: [], console: [] };
  page.on('pageerror', (err) => errors.page.push(String(err)));
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.console.push(msg.text());
  });
  return errors;
}
