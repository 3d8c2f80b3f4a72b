import type { Clock } from '../../clock.js';
import type { Config } from '../../config.js';
import type { Executor } from '../../db/database.js';
import type { AnyRoute } from '../../http/route.js';
import { onInvoicePaid, onRefund } from '../payments/index.js';
import { deleteMarketplaceRows } from './marketplace.repository.js';
import { marketplaceRouteList } from './marketplace.routes.js';
import { onOrderInvoicePaid, onOrderPaymentRefunded } from './orders.service.js';

/**
 * The marketplace's orders, commissions and provider payouts (DESIGN §12). Paying an order's
 * invoice through §9 moves the order to paid: payments calls the hook registered here inside the
 * paying transaction (payments imports no module, so there is no import cycle); a refund of a
 * paid order's payment through POST /v1/refunds is mapped to the order's lines, commission and
 * payouts by the refund hook, in the refunding transaction.
 */
export function marketplaceRoutes(deps: { config: Config; clock: Clock }): AnyRoute[] {
  onInvoicePaid(onOrderInvoicePaid);
  onRefund(onOrderPaymentRefunded);
  return marketplaceRouteList(deps);
}

/** Sandbox reset: erases the tenant's orders and commission lines; runs before money records (statements), bookings and providers go. */
export async function eraseMarketplaceRecords(db: Executor, tenantId: string): Promise<void> {
  await deleteMarketplaceRows(db, tenantId);
}
export { marketplaceModule } from './marketplace.module.js';
