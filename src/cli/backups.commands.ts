import { createArchive, readArchive, restoreArchive } from '../modules/backups/index.js';
import type { CliCommand } from './command.js';

/**
 * Whole-appliance backups, offline. `backup` works while the server runs (databases copied with
 * VACUUM INTO); `backup verify` only reads (a read-only mount will do); `restore` refuses while
 * any appliance process uses the data dir. Each prints its result on its last line, so a script
 * can take the archive path from `backup | tail -n 1`. PETCARE_BACKUP_KEY(_FILE) encrypts and
 * decrypts; `--unencrypted` lets an archive without a key leave the data dir.
 */
export const backupCommands: Record<string, CliCommand> = {
  backup: {
    options: ['out', 'unencrypted'],
    run: async ({ config, values, out, clock }) => {
      const created = await createArchive({
        dataDir: config.dataDir,
        backupDir: config.backupDir,
        now: clock.now(),
        platformVersion: config.platformVersion,
        keep: config.backupsKept,
        key: config.backupKey,
        unencrypted: values.unencrypted === true,
        out: values.out,
      });
      const { file, manifest, deleted, encrypted, warning } = created;
      if (warning) process.stderr.write(`warning: --unencrypted: ${warning}.\n`);
      if (values.json) return out(JSON.stringify({ file, files: manifest.files.length, schemaVersion: manifest.schemaVersion, encrypted, deleted }, null, 2));
      out(
        `archived ${manifest.files.length} files (schema ${manifest.schemaVersion ?? 'unknown'}, ${encrypted ? 'encrypted' : 'not encrypted'}); ${deleted} older archive(s) removed`,
      );
      out(file);
    },
  },
  'backup verify': {
    options: [],
    argument: 'an archive path',
    run: async ({ config, values, argument, out }) => {
      const { manifest, encrypted } = await readArchive(argument, { key: config.backupKey });
      if (values.json) return out(JSON.stringify({ ...manifest, encrypted }, null, 2));
      out(
        `ok: ${manifest.files.length} files match their sha256 (created ${manifest.createdAt}, schema ${manifest.schemaVersion ?? 'unknown'}, ` +
          `${manifest.environments.join(' + ')}, ${encrypted ? 'encrypted, authenticated with PETCARE_BACKUP_KEY' : 'not encrypted'})`,
      );
    },
  },
  restore: {
    options: ['force'],
    argument: 'an archive path',
    run: async ({ config, values, argument, out, clock }) => {
      const manifest = await restoreArchive({
        archive: argument,
        dataDir: config.dataDir,
        force: values.force === true,
        now: clock.now(),
        key: config.backupKey,
        backupDir: config.backupDir,
      });
      if (values.json) return out(JSON.stringify({ restored: argument, dataDir: config.dataDir, createdAt: manifest.createdAt }, null, 2));
      out(`restored ${manifest.files.length} files from the backup of ${manifest.createdAt} into ${config.dataDir}`);
    },
  },
};
