import { createArchive, restoreArchive, verifyArchive } from '../modules/backups/index.js';
import type { CliCommand } from './command.js';

/**
 * Whole-appliance backups, offline. `backup` works while the server runs (SQLite online backup);
 * `restore` refuses while a server holds the data dir. Each prints its result on its last line,
 * so a script can take the archive path from `backup | tail -n 1`.
 */
export const backupCommands: Record<string, CliCommand> = {
  backup: {
    options: [],
    run: async ({ config, values, out, clock }) => {
      const { file, manifest, deleted } = await createArchive({
        dataDir: config.dataDir,
        backupDir: config.backupDir,
        now: clock.now(),
        platformVersion: config.platformVersion,
        keep: config.backupsKept,
      });
      if (values.json) return out(JSON.stringify({ file, files: manifest.files.length, schemaVersion: manifest.schemaVersion, deleted }, null, 2));
      out(`archived ${manifest.files.length} files (schema ${manifest.schemaVersion ?? 'unknown'}); ${deleted} older archive(s) removed`);
      out(file);
    },
  },
  'backup verify': {
    options: [],
    argument: 'an archive path',
    run: async ({ values, argument, out }) => {
      const manifest = await verifyArchive(argument);
      if (values.json) return out(JSON.stringify(manifest, null, 2));
      out(`ok: ${manifest.files.length} files match their sha256 (created ${manifest.createdAt}, schema ${manifest.schemaVersion ?? 'unknown'}, ${manifest.environments.join(' + ')})`);
    },
  },
  restore: {
    options: ['force'],
    argument: 'an archive path',
    run: async ({ config, values, argument, out, clock }) => {
      const manifest = await restoreArchive({ archive: argument, dataDir: config.dataDir, force: values.force === true, now: clock.now() });
      if (values.json) return out(JSON.stringify({ restored: argument, dataDir: config.dataDir, createdAt: manifest.createdAt }, null, 2));
      out(`restored ${manifest.files.length} files from the backup of ${manifest.createdAt} into ${config.dataDir}`);
    },
  },
};
