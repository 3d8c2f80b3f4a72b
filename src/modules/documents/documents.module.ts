import type { ModuleManifest } from '../../module-manifest.js';
import type { DocumentsTables } from './documents.table.js';
import { DocumentFiles } from './document-files.js';
import { documentHousekeeping } from './documents.jobs.js';
import { documentRoutes } from './documents.routes.js';

// The module's tables join the `Database` type here, so src/db imports no module.
declare module '../../db/database.js' {
  interface Database extends DocumentsTables {}
}

export const documentsModule: ModuleManifest<Parameters<typeof documentRoutes>[0] & Parameters<typeof documentHousekeeping>[0]> = {
  name: 'documents',
  sdk: {
    pets: {
      documents: {
        list: 'listPetDocuments',
      },
    },
    documents: {
      get: 'getDocument',
      delete: 'deleteDocument',
    },
  },
  routes: (deps) => documentRoutes(deps),
  housekeeping: (deps) => documentHousekeeping(deps),
  tags: { Documents: 'Files attached to pets (doc_ ids): PDF, images and text, type decided by content, text extracted.' },
  tables: ['documents'],
  access: {
    documents: { parent: 'pets', key: 'pet_id' },
  },
  reset: { cascades: { documents: 'pets' }, files: (dataDir, env) => new DocumentFiles(dataDir).removeAllStored(env) },
};
