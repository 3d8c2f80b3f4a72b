import type { ModuleManifest } from '../../module-manifest.js';
import { auditRoutes } from './audit.routes.js';

/** Reads the audit trail the gateway writes (src/http/audit.ts). */
export const auditModule: ModuleManifest<Parameters<typeof auditRoutes>[0]> = {
  name: 'audit',
  routes: (deps) => auditRoutes(deps),
  tags: { Audit: 'The audit trail of every call.' },
  tables: ['audit_events'],
  access: {
    audit_events: { location: null, why: 'the audit log is read tenant-wide, by admins' },
  },
  reset: { keeps: { audit_events: 'the audit trail outlives a sandbox reset' } },
};
