import { useSyncExternalStore } from 'react';
import { cartLines, cartTotal, formatPrice, getShopState, removeFromCart, subscribeShop } from '../shop.js';
import { checkoutAsPerson } from '../tools.js';

export function Cart() {
  const shop = useSyncExternalStore(subscribeShop, getShopState);
  const lines = cartLines(shop.cart);
  const count = shop.cart.reduce((n, line) => n + line.quantity, 0);
  return (
    <section className="panel" aria-labelledby="cart-title">
      <div className="panel-head">
        <h2 id="cart-title">
          Cart <span className="count" data-testid="cart-count">{count}</span>
        </h2>
        <div className="stats">
          <span>
            orders placed <strong data-testid="orders-count">{shop.orders.length}</strong>
          </span>
          <span title="How many times the checkout function actually ran">
            checkout ran <strong data-testid="checkout-runs">{shop.checkoutRuns}</strong>×
          </span>
          <span>
            account <strong data-testid="account-status" className={shop.account === 'active' ? 'ok' : 'bad'}>{shop.account}</strong>
          </span>
        </div>
      </div>
      <div className="cart-grid">
        <div>
          {lines.length === 0 ? (
            <p className="empty" data-testid="cart-empty">The cart is empty.</p>
          ) : (
            <table className="cart" data-testid="cart">
              <tbody>
                {lines.map((line) => (
                  <tr key={line.productId} data-testid={`cart-line-${line.productId}`}>
                    <td className="qty">{line.quantity}×</td>
                    <td>{line.name}</td>
                    <td className="num">{formatPrice(line.subtotal)}</td>
                    <td className="num">
                      <button type="button" className="btn-link" aria-label={`Remove ${line.name}`} onClick={() => removeFromCart(line.productId)}>
                        remove
                      </button>
                    </td>
                  </tr>
                ))}
              </tbody>
              <tfoot>
                <tr>
                  <td />
                  <td>Total</td>
                  <td className="num" data-testid="cart-total">{formatPrice(cartTotal(shop.cart))}</td>
                  <td />
                </tr>
              </tfoot>
            </table>
          )}
          <button type="button" className="btn" disabled={lines.length === 0} onClick={() => checkoutAsPerson()}>
            Check out myself
          </button>
        </div>
        <div>
          <h3 className="sub">Orders</h3>
          {shop.orders.length === 0 ? (
            <p className="empty">No orders yet.</p>
          ) : (
            <ul className="orders" data-testid="orders">
              {shop.orders.slice(0, 4).map((order) => (
                <li key={order.id}>
                  <code>{order.id}</code> {formatPrice(order.total)} · {order.items.length} item{order.items.length === 1 ? '' : 's'}
                  <span className={`by by-${order.by}`}>by {order.by}</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      </div>
    </section>
  );
}
