// The shop's own state: a catalogue, a cart, orders and an account. Plain module state with a
// subscribe function (read with React's useSyncExternalStore), so the tools, the page's buttons
// and the test all see the same thing.

export const PRODUCTS = [
  { id: 'mug-stone', name: 'Stoneware mug', price: 14, stock: 12, blurb: 'Hand-glazed, 350 ml.' },
  { id: 'mug-travel', name: 'Travel mug', price: 22, stock: 8, blurb: 'Keeps coffee hot for 6 hours.' },
  { id: 'teapot-iron', name: 'Cast-iron teapot', price: 48, stock: 3, blurb: 'Enamelled inside, 0.8 l.' },
  { id: 'kettle-pour', name: 'Pour-over kettle', price: 39, stock: 5, blurb: 'Gooseneck spout for a slow pour.' },
  { id: 'tea-sencha', name: 'Sencha green tea', price: 9, stock: 30, blurb: '100 g, first flush.' },
  { id: 'beans-espresso', name: 'Espresso beans', price: 17, stock: 0, blurb: '1 kg, medium roast. Sold out.' },
];

export const PRODUCT_IDS = PRODUCTS.map((p) => p.id);

export function productById(id) {
  return PRODUCTS.find((p) => p.id === id);
}

let state = {
  cart: [], // [{ productId, quantity }]
  orders: [], // [{ id, items, total, at, by }]
  checkoutRuns: 0, // how many times the checkout function actually ran
  account: 'active',
};
const listeners = new Set();

export function getShopState() {
  return state;
}

export function subscribeShop(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function update(patch) {
  state = { ...state, ...patch };
  for (const listener of listeners) listener();
}

export function cartLines(cart = state.cart) {
  return cart.map((line) => {
    const product = productById(line.productId);
    return { ...line, name: product.name, price: product.price, subtotal: product.price * line.quantity };
  });
}

export function cartTotal(cart = state.cart) {
  return cartLines(cart).reduce((sum, line) => sum + line.subtotal, 0);
}

export function addToCart(productId, quantity = 1) {
  const product = productById(productId);
  if (!product) throw new Error(`No product with id "${productId}"`);
  const existing = state.cart.find((line) => line.productId === productId);
  const cart = existing
    ? state.cart.map((line) => (line.productId === productId ? { ...line, quantity: line.quantity + quantity } : line))
    : [...state.cart, { productId, quantity }];
  update({ cart });
  return cart;
}

export function removeFromCart(productId) {
  update({ cart: state.cart.filter((line) => line.productId !== productId) });
}

/** Places an order for the whole cart and empties it. `by` says who asked (the page or an agent). */
export function placeOrder(by) {
  update({ checkoutRuns: state.checkoutRuns + 1 });
  if (state.cart.length === 0) throw new Error('The cart is empty: add something first.');
  const order = {
    id: `A-${1000 + state.orders.length + 1}`,
    items: cartLines(),
    total: cartTotal(),
    at: new Date().toISOString(),
    by,
  };
  update({ orders: [order, ...state.orders], cart: [] });
  return order;
}

export function deleteAccount() {
  update({ account: 'deleted', cart: [] });
}

export function formatPrice(euros) {
  return `€${euros.toFixed(2)}`;
}
