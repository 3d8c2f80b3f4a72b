export { backupJob } from './backup.jobs.js';
