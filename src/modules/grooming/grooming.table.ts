/** Tables of the grooming module, keyed by the shared booking id where they hold a booking's details (scaffold: the module declares them). */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface GroomingTables {}
