export { clientRoutes } from './clients.routes.js';
export { ClientDirectory } from './client-directory.js';
export { bootstrapTenantAndAdmin } from './clients.bootstrap.js';
export * as clientsService from './clients.service.js';
export { findClientById, findClientByPublicId, listClients, type ApiClient } from './clients.repository.js';
export { hashSecret, verifySecret } from './client-secrets.js';
export { presentClient, presentClientWithSecret } from './clients.presenter.js';
export { CreateClientSchema, type CreateClientInput } from './clients.schema.js';
export { clientsModule } from './clients.module.js';
