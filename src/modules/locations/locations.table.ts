/**
 * The locations columns this module adds after the core `LocationsTable` (src/db/database.ts):
 * declared here by interface merging, so the module that owns the column also owns its type.
 * Optional because inserts elsewhere (sandbox demo data) leave it to the column's default '{}'.
 */
declare module '../../db/database.js' {
  interface LocationsTable {
    /** JSON object: species → vaccine names boarded pets of that species must have, e.g. {"dog":["Rabies"]}. */
    boarding_required_vaccines?: string;
  }
}

export {};
