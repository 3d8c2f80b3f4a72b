import type { ModuleManifest } from '../../module-manifest.js';
import { auditRoutes } from './audit.routes.js';

/** Reads the audit trail the gateway writes (src/http/audit.ts). */
export const auditModule: ModuleManifest<Parameters<typeof auditRoutes>[0]> = {
  name: 'audit',
  sdk: {
    auditEvents: {
      list: 'listAuditEvents',
    },
  },
  routes: (deps) => auditRoutes(deps),
  tags: { Audit: 'The audit trail of every call.' },
  tables: ['audit_events'],
  access: {
    // The trail's own rule is not the policy's: calls no tenant was identified for are shown to unscoped
    // admins too, and a location-scoped admin sees only its own calls (audit.routes writes both, on acrossTenants).
    audit_events: {
      location: null,
      why: 'the audit log is read by admins: tenant-wide, with the unidentified calls; a location-scoped admin only its own calls',
    },
  },
  reset: { keeps: { audit_events: 'the audit trail outlives a sandbox reset' } },
};
