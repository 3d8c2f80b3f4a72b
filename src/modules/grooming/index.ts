export { groomingModule } from './grooming.module.js';
