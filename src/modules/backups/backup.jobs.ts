import type { JobDefinition, JobResult } from '../../jobs/job-definition.js';
import { environmentsOf } from '../../config.js';
import { createArchive } from './appliance-archive.js';

/**
 * `backup`: one archive of the whole appliance (every file of the data dir but older archives,
 * locks and staging; databases through VACUUM INTO on a worker thread) into PETCARE_BACKUP_DIR,
 * keeping the newest PETCARE_BACKUPS_KEPT, encrypted with PETCARE_BACKUP_KEY(_FILE) when set. A
 * PETCARE_BACKUP_DIR outside the data dir without a key fails the run with the reason (the CLI's
 * --unencrypted has no job equivalent). The archive covers every environment, so only the primary
 * one's run writes it (live, or the sandbox of a sandbox-only appliance); another environment's run says so.
 */
export function backupJob(): JobDefinition {
  return {
    name: 'backup',
    description:
      'Writes one archive of the whole appliance (every file of the data dir except older archives, locks and staging folders; each SQLite database copied consistently with VACUUM INTO; ' +
      'a manifest with the sha256 of every file) to PETCARE_BACKUP_DIR (default <data>/backups) with mode 0600, encrypted with AES-256-GCM when PETCARE_BACKUP_KEY(_FILE) is set ' +
      '(required when PETCARE_BACKUP_DIR is outside the data dir), and keeps the newest PETCARE_BACKUPS_KEPT (7). Restore with the CLI: `petcare restore <archive>`.',
    schedule: { cron: '30 2 * * *' },
    maxAttempts: 2,
    async run({ env, config, clock, workers }): Promise<JobResult> {
      if (env !== environmentsOf(config)[0]) return { skipped: true, reason: 'the archive of the primary environment covers this one' };
      const { file, manifest, deleted, encrypted } = await createArchive({
        dataDir: config.dataDir,
        backupDir: config.backupDir,
        now: clock.now(),
        platformVersion: config.platformVersion,
        keep: config.backupsKept,
        key: config.backupKey,
        workers,
      });
      return { file, files: manifest.files.length, schemaVersion: manifest.schemaVersion, encrypted, deleted };
    },
  };
}
