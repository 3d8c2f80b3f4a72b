import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { AnyRoute } from '../../http/route.js';
import { onInvoicePaid } from '../payments/index.js';
import { marketplaceRouteList } from './marketplace.routes.js';
import { onOrderInvoicePaid } from './orders.service.js';

/**
 * The marketplace's orders, commissions and provider payouts (DESIGN §12). Paying an order's
 * invoice through §9 moves the order to paid: payments calls the hook registered here inside the
 * paying transaction (payments imports no module, so there is no import cycle).
 */
export function marketplaceRoutes(deps: { config: Config; clock: Clock }): AnyRoute[] {
  onInvoicePaid(onOrderInvoicePaid);
  return marketplaceRouteList(deps);
}
