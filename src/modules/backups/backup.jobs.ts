import type { JobDefinition, JobResult } from '../../jobs/job-definition.js';
import { environmentsOf } from '../../config.js';
import { createArchive } from './appliance-archive.js';

/**
 * `backup`: one archive of the whole appliance (both databases through SQLite's online backup,
 * documents, signing keys, a manifest of sha256s) into PETCARE_BACKUP_DIR, keeping the newest
 * PETCARE_BACKUPS_KEPT. The archive covers every environment, so only the primary one's run
 * writes it (live, or the sandbox of a sandbox-only appliance); another environment's run says so.
 */
export function backupJob(): JobDefinition {
  return {
    name: 'backup',
    description:
      'Writes one archive of the whole appliance (each environment database via SQLite online backup, documents/, keys/ and a manifest with the sha256 of every file) ' +
      'to PETCARE_BACKUP_DIR (default <data>/backups) with mode 0600, and keeps the newest PETCARE_BACKUPS_KEPT (7). Restore with the CLI: `petcare restore <archive>`.',
    schedule: { cron: '30 2 * * *' },
    maxAttempts: 2,
    async run({ env, config, clock }): Promise<JobResult> {
      if (env !== environmentsOf(config)[0]) return { skipped: true, reason: 'the archive of the primary environment covers this one' };
      const { file, manifest, deleted } = await createArchive({
        dataDir: config.dataDir,
        backupDir: config.backupDir,
        now: clock.now(),
        platformVersion: config.platformVersion,
        keep: config.backupsKept,
      });
      return { file, files: manifest.files.length, schemaVersion: manifest.schemaVersion, deleted };
    },
  };
}
