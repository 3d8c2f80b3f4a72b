export { docsModule } from './docs.module.js';
