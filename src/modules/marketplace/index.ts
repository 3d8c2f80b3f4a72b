export { marketplaceModule } from './marketplace.module.js';
