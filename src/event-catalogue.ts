/**
 * The event catalogue as a type: each module that emits events adds its manifest's `events` here by
 * declaration merging, as it adds its tables to `Database`
 * (`declare module '../../event-catalogue.js' { interface EventCatalogue extends PetsEvents {} }`), so
 * `emit` checks each payload against its type's data schema and a route's `emits` names catalogue types.
 * A file of its own: both the manifests and `src/http` routes read it, and it imports nothing.
 */
export interface EventCatalogue {}

/** A canonical event type of the catalogue. */
export type CatalogueEventType = keyof EventCatalogue & string;
