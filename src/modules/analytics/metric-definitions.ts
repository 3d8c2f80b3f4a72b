import type { MetricName, MetricUnit } from './analytics.schema.js';

export interface MetricDefinition {
  unit: MetricUnit;
  /** A state at the end of `to` (of each bucket in a series) rather than a count of what happened in the window. */
  atEnd: boolean;
  /** The declared basis (DESIGN §14): which date places a record, and the formula. */
  date: string;
  formula: string;
}

const localDay = "in the location's time zone (from 00:00 of `from` to 24:00 of `to`, local)";

/** Each metric's unit and declared basis; the SQL of each is in analytics.repository.ts and follows these words. */
export const metricDefinitions: Record<MetricName, MetricDefinition> = {
  revenue_net: {
    unit: 'minor',
    atEnd: false,
    date: `payment and refund createdAt ${localDay}`,
    formula:
      'sum of payments (every method, tax included) − sum of refunds created in the window, in one currency; equals the negated sum of the receivable:* lines ' +
      "of those payments' and refunds' journal entries (GET /v1/ledger/entries, sourceType payment and refund)",
  },
  invoices_open: {
    unit: 'count',
    atEnd: true,
    date: `the state at 24:00 of \`to\` ${localDay}: finalizedAt before it, and not paid, voided or marked uncollectible before it`,
    formula: 'count of invoices open at the end of `to`',
  },
  appointments_by_status: {
    unit: 'count',
    atEnd: false,
    date: `appointment startsAt ${localDay}`,
    formula:
      'count of appointments starting in the window; breakdown: the count of each current status (confirmed, checked_in, in_progress, completed, cancelled, no_show)',
  },
  no_show_rate: {
    unit: 'ratio',
    atEnd: false,
    date: `appointment startsAt ${localDay}`,
    formula: 'no_show / (completed + no_show) over appointments starting in the window, by current status; 0 when none of either',
  },
  boarding_occupancy_rate: {
    unit: 'ratio',
    atEnd: false,
    date: "boarding night (the local date a night starts) from `from` to `to`, inclusive, in the location's calendar",
    formula:
      'booked room-nights (places reserved or checked in on each night; nights of a stay checked out early count up to its check-out) / ' +
      'room-nights of capacity (the capacity of the rooms active now × the nights of the window); 0 without rooms',
  },
  grooming_completed: {
    unit: 'count',
    atEnd: false,
    date: `grooming booking startsAt ${localDay}`,
    formula: 'count of grooming bookings starting in the window whose status is completed',
  },
  vaccination_compliance_rate: {
    unit: 'ratio',
    atEnd: true,
    date: 'the state on `to` (each pet at its current location): vaccinations administered on or before `to`, pets created before 24:00 of `to`',
    formula:
      'pets with no overdue vaccination on `to` / pets with at least one vaccination record; per vaccine only the latest dose counts, overdue = its dueOn before `to`, ' +
      'due soon counts as compliant; pets are never archived in this API, so every pet existing at `to` is active',
  },
  new_pets: {
    unit: 'count',
    atEnd: false,
    date: `pet createdAt ${localDay}, at the pet's current location`,
    formula: 'count of pets created in the window',
  },
  active_pets: {
    unit: 'count',
    atEnd: true,
    date: "the state at 24:00 of `to` in the location's time zone, at the pet's current location",
    formula: 'count of pets created before the end of `to` (pets are never archived or deleted through this API, so each existing pet is active)',
  },
  marketplace_gmv: {
    unit: 'minor',
    atEnd: false,
    date: `marketplace order paidAt ${localDay}, at the order's location`,
    formula:
      'sum of the amounts (tax excluded) of the lines of marketplace orders paid in the window, whatever happened to them later (gross: refunds are not deducted)',
  },
  commission_earned: {
    unit: 'minor',
    atEnd: false,
    date: `commission line createdAt ${localDay}, at its order's location`,
    formula:
      'sum of the commission of commission lines created in the window: accruals of paid lines, minus the negative lines refunds post (accrued and settled alike)',
  },
};
