export { groomingModule } from './grooming.module.js';
// The sandbox's demo practice sells its memberships the way the API does.
export { createMembership } from './grooming-credits.service.js';
