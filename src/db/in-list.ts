/**
 * Values for a SQL `in (…)`: SQLite refuses an empty list, and an empty allow-list (a client
 * confined to no locations) must match nothing, so it becomes a list no id equals.
 */
export const inList = (values: readonly string[]): string[] => (values.length ? [...values] : ['']);
