import { type Static, Type, type TProperties } from '@sinclair/typebox';
import type { EventCatalogue } from '../../event-catalogue.js';
import type { EventTypeInfo } from '../../module-manifest.js';

export type { EventTypeInfo };

/** A canonical type: each module adds its own to `EventCatalogue` (its `<m>.events.ts`). */
export type EventType = keyof EventCatalogue & string;
type AliasesOf<I> = I extends { aliases: readonly (infer A extends string)[] } ? A : never;
export type EventTypeAlias = { [T in EventType]: AliasesOf<EventCatalogue[T]> }[EventType];
/** A name a client may use for a type: canonical or alias. */
export type EventTypeName = EventType | EventTypeAlias;
/** The `data` of an event of type T, as its catalogue entry describes it: what `emit` takes. */
export type EventData<T extends EventType> = Static<EventCatalogue[T]['data']>;

/**
 * Sent only by POST /v1/webhook-endpoints/:id/test, to that endpoint: outside the catalogue,
 * never stored in the event stream, never subscribable.
 */
export const testEventType = 'webhook.test';

/** Field builders for the modules' data schemas (documentation and tests; the emitters own the values). */
export const eventFields = {
  id: (prefix: string, what: string) => Type.String({ pattern: `^${prefix}_`, description: `${what} (${prefix}_…).` }),
  dateTime: (description: string) => Type.String({ format: 'date-time', description }),
  date: (description: string) => Type.String({ format: 'date', description }),
  amount: Type.Integer({ description: 'Integer minor units (cents).' }),
  currency: Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code, e.g. USD.' }),
};

/** An event's data schema. */
export const eventData = <P extends TProperties>(properties: P, description: string) =>
  // Open objects: a later release may add fields to an event's data, never remove or retype one.
  Type.Object(properties, { description: `${description} More fields may be added; none are removed.` });

/** The data of the synthetic test event. */
export const testEventData = eventData(
  {
    endpointId: eventFields.id('whe', 'The endpoint tested'),
    message: Type.String(),
  },
  'A signed test delivery.',
);

// The catalogue at run time: the manifests' `events`, registered by the app.
const catalogue = new Map<string, { owner: string; info: EventTypeInfo }>();
const aliasTargets = new Map<string, string>();

/** Adds a module's event types (its manifest's `events`); a name two modules claim is a mistake. */
export function registerEventTypes(owner: string, events: Readonly<Record<string, EventTypeInfo>>): void {
  for (const [type, info] of Object.entries(events)) {
    const known = catalogue.get(type);
    if ((known !== undefined && known.info !== info) || aliasTargets.has(type))
      throw new Error(`event type ${type} is declared twice (the second time by ${owner})`);
    catalogue.set(type, { owner, info });
    for (const alias of info.aliases ?? []) {
      const target = aliasTargets.get(alias);
      if ((target !== undefined && target !== type) || catalogue.has(alias))
        throw new Error(`event type alias ${alias} is declared twice (the second time by ${owner})`);
      aliasTargets.set(alias, type);
    }
  }
}

/**
 * The order of both seed lists (DESIGN §6), in which GET /v1/event-types and the schemas listed the
 * types before the modules declared them: kept so those answers do not change. A type or alias not
 * named here follows the named ones, in the modules' order; a new type needs no entry.
 */
const seedOrder: readonly string[] = [
  'pet.registered',
  'appointment.created',
  'appointment.completed',
  'pet.vaccination_due',
  'boarding.checked_in',
  'boarding.checked_out',
  'payment.completed',
  'provider.onboarded',
  'provider.approved',
  'booking.created',
  'booking.cancelled',
  'marketplace.booking_created',
  'invoice.finalized',
  'invoice.paid',
  'refund.created',
  'subscription.created',
  'subscription.past_due',
  'subscription.canceled',
  'boarding.dose_overdue',
  'order.created',
  'order.paid',
  'order.cancelled',
  'order.refunded',
  'marketplace.booking_completed',
  'ai.recall_sent',
  'payment.succeeded',
  'vaccination.due',
];
const seedRank = (name: string): number => {
  const at = seedOrder.indexOf(name);
  return at === -1 ? seedOrder.length : at;
};
// A stable sort: names outside the seed lists keep the modules' order.
const inSeedOrder = <T extends string>(names: Iterable<T>): T[] => [...names].sort((a, b) => seedRank(a) - seedRank(b));

/** The canonical types, in catalogue order. */
export const canonicalEventTypes = (): EventType[] => inSeedOrder(catalogue.keys() as Iterable<EventType>);

/** Each alias and the canonical type it stands for, in catalogue order. */
export const eventTypeAliases = (): Array<[EventTypeAlias, EventType]> =>
  inSeedOrder(aliasTargets.keys() as Iterable<EventTypeAlias>).map((alias) => [alias, aliasTargets.get(alias) as EventType]);

/** Every name a client may use: the canonical types, then the aliases. */
export const eventTypeNames = (): EventTypeName[] => [...canonicalEventTypes(), ...eventTypeAliases().map(([alias]) => alias)];

/** What GET /v1/event-types says of a canonical type. */
export function eventTypeInfo(type: EventType): EventTypeInfo {
  const entry = catalogue.get(type);
  if (entry === undefined) throw new Error(`event type ${type} is not registered: the app lists its module`);
  return entry.info;
}

/** The canonical type a name stands for; null for a name outside the catalogue. */
export function canonicalOf(name: string): EventType | null {
  if (catalogue.has(name)) return name as EventType;
  return (aliasTargets.get(name) as EventType | undefined) ?? null;
}

export const aliasesOf = (type: EventType): EventTypeAlias[] => [...((catalogue.get(type)?.info.aliases ?? []) as EventTypeAlias[])];
