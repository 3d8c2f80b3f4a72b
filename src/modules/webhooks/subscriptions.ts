import { aliasesOf, canonicalOf, type EventType } from '../events/index.js';

/** What an endpoint subscribes to: catalogue names (canonical or alias) and/or "*". */
export const wildcard = '*';

/**
 * The name under which an endpoint receives an event of canonical `type`, or null if it does not
 * receive it (DESIGN §6). Subscribed by the canonical name or "*": the canonical name. Subscribed by
 * an alias only: the alias. Subscribed by both: once, under the canonical name.
 */
export function deliveredTypeFor(type: string, subscribed: readonly string[]): string | null {
  if (subscribed.includes(type) || subscribed.includes(wildcard)) return type;
  for (const alias of aliasesOf(type as EventType)) if (subscribed.includes(alias)) return alias;
  return null;
}

/** The canonical types an endpoint receives (null: every type). */
export function canonicalTypesFor(subscribed: readonly string[]): string[] | null {
  if (subscribed.includes(wildcard)) return null;
  const types = new Set<string>();
  for (const name of subscribed) {
    const type = canonicalOf(name);
    if (type) types.add(type);
  }
  return [...types];
}
