export { documentRoutes } from './documents.routes.js';
export { documentText } from './documents.repository.js';
export { DocumentFiles } from './document-files.js';
export { documentHousekeeping } from './documents.jobs.js';
