/**
 * The analytics computations a read worker runs (src/db/read-pool.ts, `onReadPool`): each exported
 * function takes the worker's reads and a structured-clone input and answers a small value. This
 * module is what a worker imports, so it is a file of its own (a single-file bundle has none beside
 * it: then the same function runs on the API's thread).
 */
export { computeTallies } from './analytics.repository.js';
