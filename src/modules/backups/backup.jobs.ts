import { mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { JobDefinition } from '../../jobs/job-definition.js';

/** Daily copies kept per environment; older ones are deleted after a new copy succeeds. */
export const backupsKept = 7;

/**
 * `backup`: an online copy of the environment's SQLite file into `<dataDir>/backups/` through
 * SQLite's backup API (consistent while the service keeps writing), named by environment and time.
 */
export function backupJob(): JobDefinition {
  return {
    name: 'backup',
    description: `Copies each environment's SQLite file to <PETCARE_DATA_DIR>/backups/<env>-<time>.sqlite (SQLite online backup) and keeps the newest ${backupsKept}.`,
    schedule: { cron: '30 2 * * *' },
    maxAttempts: 2,
    async run({ store, config, clock }) {
      const dir = path.join(config.dataDir, 'backups');
      mkdirSync(dir, { recursive: true });
      const stamp = new Date(clock.now()).toISOString().replace(/[:.]/g, '-');
      const file = path.join(dir, `${store.env}-${stamp}.sqlite`);
      // Written under a temporary name and renamed when complete: a backup cut short (disk full)
      // never passes for one, nor counts among the copies kept.
      const partial = `${file}.partial`;
      let progress: { totalPages: number };
      try {
        progress = await store.sqlite.backup(partial);
        renameSync(partial, file);
      } catch (err) {
        rmSync(partial, { force: true });
        throw err;
      }
      const mine = readdirSync(dir)
        .filter((name) => name.startsWith(`${store.env}-`) && name.endsWith('.sqlite'))
        .sort();
      const stale = mine.slice(0, Math.max(0, mine.length - backupsKept));
      for (const name of stale) rmSync(path.join(dir, name), { force: true });
      return { file: path.basename(file), pages: progress.totalPages, deleted: stale.length };
    },
  };
}
