import { PRODUCTS, addToCart, formatPrice } from '../shop.js';

/** The shop as a person sees it. These buttons call the shop directly: a person needs no warden. */
export function Catalogue() {
  return (
    <section className="panel" aria-labelledby="catalogue-title">
      <div className="panel-head">
        <h2 id="catalogue-title">Catalogue</h2>
        <span className="hint">Buttons are you. Agents use the tools.</span>
      </div>
      <ul className="products" data-testid="catalogue">
        {PRODUCTS.map((p) => (
          <li key={p.id} className="product" data-testid={`product-${p.id}`}>
            <div className="product-name">{p.name}</div>
            <div className="product-blurb">{p.blurb}</div>
            <div className="product-foot">
              <span className="price">{formatPrice(p.price)}</span>
              <button type="button" className="btn btn-small" disabled={p.stock === 0} onClick={() => addToCart(p.id, 1)}>
                {p.stock === 0 ? 'Sold out' : 'Add'}
              </button>
            </div>
            <code className="product-id">{p.id}</code>
          </li>
        ))}
      </ul>
    </section>
  );
}
