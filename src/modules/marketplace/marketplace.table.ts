/** Tables of the marketplace module (DESIGN §12); rows follow the conventions at the top of src/db/database.ts. */

export type OrderStatus = 'pending_payment' | 'paid' | 'fulfilled' | 'cancelled' | 'partially_refunded' | 'refunded';

/** An order (ord_…): its lines are billed on one invoice at the pet's location. */
export interface MarketplaceOrdersTable {
  id: string;
  tenant_id: string;
  location_id: string;
  parent_id: string;
  pet_id: string;
  status: OrderStatus;
  currency: string;
  /** Sum of the lines' amounts (integer minor units). */
  subtotal: number;
  /** Sum of the lines' taxes at the location's rate. */
  tax: number;
  total: number;
  /** Money paid back through the order's refunds (tax shares included). */
  amount_refunded: number;
  invoice_id: string;
  created_at: string;
  updated_at: string;
  paid_at: string | null;
  cancelled_at: string | null;
}

/** One line of an order (oln_…): a listing of a provider at a start time, holding one booking (kind marketplace). */
export interface MarketplaceOrderLinesTable {
  id: string;
  tenant_id: string;
  order_id: string;
  position: number;
  provider_id: string;
  listing_id: string;
  listing_name: string;
  category: string;
  booking_id: string;
  starts_at: string;
  ends_at: string;
  /** The listing's price when ordered (before tax). */
  amount: number;
  tax_rate_bps: number;
  currency: string;
  /** The commission rate snapshot: the provider's override, else the tenant default. */
  commission_bps: number;
  /** round-half-up(amount × commission_bps / 10000). */
  commission_amount: number;
  /** Gross (pre-tax) amount refunded so far. */
  amount_refunded: number;
  /** Tax paid back so far; with amount_refunded, what the line has paid back (order-refund-allocation.ts). */
  tax_refunded: number;
  completed_at: string | null;
}

/** A commission line (cml_…): an accrual when a line is paid (kind sale), a negative line per refund. */
export interface MarketplaceCommissionLinesTable {
  id: string;
  tenant_id: string;
  order_id: string;
  order_line_id: string;
  provider_id: string;
  kind: 'sale' | 'refund';
  refund_id: string | null;
  /** Signed: positive for a sale, negative for a refund. */
  gross: number;
  rate_bps: number;
  /** Signed as gross. */
  commission: number;
  currency: string;
  status: 'accrued' | 'settled';
  /** The payout statement (stl_…) that claimed it. */
  settlement_id: string | null;
  created_at: string;
}

export interface MarketplaceTables {
  marketplace_orders: MarketplaceOrdersTable;
  marketplace_order_lines: MarketplaceOrderLinesTable;
  marketplace_commission_lines: MarketplaceCommissionLinesTable;
}
