import type { Environment } from '../../config.js';

/** What an archive's last entry, manifest.json, says (appliance-archive.ts writes and checks it). */

export interface ManifestFile {
  path: string;
  size: number;
  sha256: string;
}

export interface Manifest {
  /** 1: databases, documents/ and keys/ with the manifest first; 2: the whole data dir, manifest last. Both are read. */
  format: 'petcare-backup/1' | 'petcare-backup/2';
  createdAt: string;
  platformVersion: string;
  /** The newest migration applied to the databases in the archive. */
  schemaVersion: string | null;
  environments: Environment[];
  files: ManifestFile[];
  /** Files that are SQLite databases, copied through SQLite (format 2). */
  databases?: string[];
}
