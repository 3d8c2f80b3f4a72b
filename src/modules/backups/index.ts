export { backupJob } from './backup.jobs.js';
export { ArchiveError, createArchive, verifyArchive, type Manifest } from './appliance-archive.js';
export { restoreArchive } from './restore.js';
