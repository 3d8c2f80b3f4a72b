import type { ModuleManifest } from '../../module-manifest.js';
import { backupJob } from './backup.jobs.js';

export const backupsModule: ModuleManifest<unknown> = {
  name: 'backups',
  jobs: () => [backupJob()],
};
