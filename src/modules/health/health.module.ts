import type { Config } from '../../config.js';
import type { Stores } from '../../db/stores.js';
import type { AuditLog } from '../../http/audit.js';
import type { Metrics } from '../../http/metrics.js';
import type { ModuleManifest } from '../../module-manifest.js';
import { healthRoutes } from './health.routes.js';

export const healthModule: ModuleManifest<{ config: Config; stores: Stores; metrics: Metrics; audit: AuditLog }> = {
  name: 'health',
  routes: (deps) =>
    healthRoutes({ stores: deps.stores, metrics: deps.metrics, platformVersion: deps.config.platformVersion, auditBacklog: () => deps.audit.backlog() }),
  tags: { Operations: 'Health, readiness, metrics and version; no token needed.' },
};
