import type { ModuleManifest } from '../../module-manifest.js';
import type { MarketplaceTables } from './marketplace.table.js';
import { onInvoicePaid, onRefund } from '../payments/index.js';
import { deleteMarketplaceRows } from './marketplace.repository.js';
import { marketplaceRouteList } from './marketplace.routes.js';
import { onOrderInvoicePaid, onOrderPaymentRefunded } from './orders.service.js';
import { marketplaceEvents } from './marketplace.events.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends MarketplaceTables {}
}

/**
 * Orders, commissions and provider payouts (DESIGN §12). Paying an order's invoice moves the order
 * to paid and a refund of its payment is mapped to its lines: payments calls the hooks registered
 * here inside the paying or refunding transaction (payments imports no module: no import cycle).
 */
export const marketplaceModule: ModuleManifest<Parameters<typeof marketplaceRouteList>[0]> = {
  name: 'marketplace',
  events: marketplaceEvents,
  sdk: {
    orders: {
      create: 'createOrder',
      list: 'listOrders',
      get: 'getOrder',
      cancel: 'cancelOrder',
      refund: 'refundOrder',
    },
    commissions: {
      list: 'listCommissions',
    },
    marketplace: {
      bookings: {
        get: 'getMarketplaceBooking',
        complete: 'completeMarketplaceBooking',
      },
      settlements: {
        create: 'createProviderPayouts',
        get: 'getProviderPayout',
      },
    },
  },
  routes: (deps) => {
    onInvoicePaid(onOrderInvoicePaid);
    onRefund(onOrderPaymentRefunded);
    return marketplaceRouteList(deps);
  },
  tags: {
    Marketplace:
      "Orders of marketplace services (ord_ ids) whose lines claim providers' slots as bookings (bkg_ ids, kind marketplace), paid through their invoice; completion, refunds by line, commission lines and provider payout statements (stl_ ids, kind provider_payout).",
  },
  tables: ['marketplace_orders', 'marketplace_order_lines', 'marketplace_commission_lines'],
  access: {
    marketplace_orders: { location: 'location_id' },
    marketplace_order_lines: { parent: 'marketplace_orders', key: 'order_id' },
    marketplace_commission_lines: { parent: 'marketplace_orders', key: 'order_id' },
  },
  // Orders reference bookings, providers and payout statements (settlements): latest in the list, they go first.
  reset: { erase: { tables: ['marketplace_commission_lines', 'marketplace_order_lines', 'marketplace_orders'], run: deleteMarketplaceRows } },
};
