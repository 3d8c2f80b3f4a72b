export { backupJob } from './backup.jobs.js';
export { createArchive, readArchive, verifyArchive, type CreatedArchive, type Manifest } from './appliance-archive.js';
export { ArchiveError } from './archive-error.js';
export { notArchived } from './data-dir-contents.js';
export { finishInterruptedRestore, restoreArchive } from './restore.js';
export { backupsModule } from './backups.module.js';
