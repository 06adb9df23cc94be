import { StrictMode, useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { webmcp, invokeTool } from 'webmcp-warden';

const PRODUCTS = [
  { id: 1, name: 'Blue mug', price: 12 },
  { id: 2, name: 'Travel mug', price: 18 },
  { id: 3, name: 'Teapot', price: 35 },
];

// One governed tool: an agent (the browser's, or the button below) calls it through the
// warden pipeline, so the before-hook runs on every agent call.
const searchProducts = webmcp(
  ({ query }) => PRODUCTS.filter((p) => p.name.toLowerCase().includes(String(query).toLowerCase())),
  {
    name: 'search_products',
    title: 'Search products',
    description: 'Search the shop catalogue by product name. Returns matching products with prices.',
    inputSchema: {
      type: 'object',
      properties: { query: { type: 'string', description: 'Words to look for in product names' } },
      required: ['query'],
    },
    annotations: { readOnlyHint: true },
    hooks: {
      before: [
        (ctx) => {
          console.log(`[warden demo] before-hook: ${ctx.contract.name} called with`, ctx.input);
        },
      ],
    },
  },
);

function App() {
  const [status, setStatus] = useState(searchProducts.status);
  const [result, setResult] = useState(null);

  useEffect(() => {
    let live = true;
    searchProducts.register().then(
      () => live && setStatus(searchProducts.status),
      () => live && setStatus(searchProducts.status),
    );
    setStatus(searchProducts.status);
    return () => {
      live = false;
      searchProducts.unregister();
    };
  }, []);

  async function callIt() {
    const outcome = await invokeTool('search_products', { query: 'mug' });
    setResult(outcome);
    setStatus(searchProducts.status);
  }

  return (
    <main style={{ fontFamily: 'system-ui, sans-serif', maxWidth: 720, margin: '2rem auto' }}>
      <h1>webmcp-warden demo</h1>
      <p>
        Tool <code>search_products</code>: <strong data-testid="status">{status}</strong>
      </p>
      <button type="button" onClick={callIt}>Call it with {'{ query: "mug" }'}</button>
      {result && (
        <pre data-testid="result" style={{ background: '#f4f4f4', padding: '1rem', whiteSpace: 'pre-wrap', wordBreak: 'break-word' }}>
          {JSON.stringify(result, null, 2)}
        </pre>
      )}
    </main>
  );
}

createRoot(document.getElementById('root')).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
