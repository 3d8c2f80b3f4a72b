/**
 * Values reused while a trigger-kept change counter stands still (occupancy, the provider
 * directory, analytics figures, knowledge term counts): each value is filed per database under the
 * counter it was computed at and returned only while the counter still reads the same. Read the
 * counter before computing: a write landing in between only makes the next call recompute.
 *
 * `owner` is the database the values belong to: the executor a read runs on (the database, or a
 * transaction whose entries die with it), or `databaseIdentity(db)` where values must hold across
 * transactions, which is safe only when the counter cannot move inside them uncommitted.
 * A store that reaches `maxEntries` is emptied before the next value goes in.
 */
export class VersionedCache<T> {
  private readonly stores = new WeakMap<object, Map<string, { version: number; value: T }>>();

  constructor(private readonly maxEntries: number) {}

  /** The value filed under `key` at `version`, or undefined. */
  get(owner: object, key: string, version: number): T | undefined {
    const hit = this.stores.get(owner)?.get(key);
    return hit !== undefined && hit.version === version ? hit.value : undefined;
  }

  set(owner: object, key: string, version: number, value: T): void {
    let store = this.stores.get(owner);
    if (!store) {
      store = new Map();
      this.stores.set(owner, store);
    }
    if (store.size >= this.maxEntries) store.clear();
    store.set(key, { version, value });
  }
}
