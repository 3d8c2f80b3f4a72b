import type { ModuleManifest } from '../../module-manifest.js';
import { jobRoutes } from './jobs.routes.js';
import { jobsErrorCodes } from './jobs.errors.js';

/** The routes over the job runner (src/jobs), whose tables these are. */
export const jobsModule: ModuleManifest<Parameters<typeof jobRoutes>[0]> = {
  name: 'jobs',
  errors: jobsErrorCodes,
  sdk: {
    jobs: {
      list: 'listJobs',
      get: 'getJob',
      run: 'runJob',
    },
  },
  routes: (deps) => jobRoutes(deps),
  tags: { Jobs: 'Background jobs: schedules, last and next runs, run now.' },
  tables: ['jobs', 'job_schedules'],
  access: {
    jobs: { system: 'the job queue of the whole appliance' },
    job_schedules: { system: 'the job schedule of the whole appliance' },
  },
};
