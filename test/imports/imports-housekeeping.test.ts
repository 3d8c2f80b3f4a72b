import test from 'ava';
import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ImportFiles } from '../../src/modules/imports/index.js';
import { createLocation } from '../helpers/factories.js';
import { useTestApp } from '../helpers/test-app.js';
import { importFile } from './import-helpers.js';

const t = useTestApp(test);

test('housekeeping removes the .part files of uploads a crash cut off once an hour old; fresh ones and waiting files stay', async (a) => {
  const admin = await t.adminToken();
  const loc = await createLocation(t);
  // An import that went through leaves nothing behind.
  const done = await importFile(t, admin, 'externalId,name\nH-1,Ada\n', { type: 'pet-parents', locationId: loc.id });
  a.is(done.status, 'done');
  const files = new ImportFiles(t.dataDir);
  const dir = files.directoryOf('live');
  a.deepEqual(readdirSync(dir), []);

  // What a kill -9 mid-upload leaves: a .part file nobody writes to any more.
  const stale = files.tempPathOf('live', 'imp_stale');
  const fresh = files.tempPathOf('live', 'imp_fresh');
  const waiting = files.pathOf('live', 'imp_waiting', 'csv');
  for (const file of [stale, fresh, waiting]) writeFileSync(file, 'externalId,name\n');
  const twoHoursAgo = (t.clock.now() - 2 * 3600 * 1000) / 1000;
  utimesSync(stale, twoHoursAgo, twoHoursAgo);
  utimesSync(waiting, twoHoursAgo, twoHoursAgo);
  const now = t.clock.now() / 1000;
  utimesSync(fresh, now, now);

  const run = await t.request('POST', '/v1/jobs/housekeeping/run', { token: admin, body: { wait: true } });
  a.is(run.status, 200);
  a.is(run.body.status, 'succeeded');
  a.is(run.body.result.staleImportUploads, 1);
  a.false(existsSync(stale));
  a.true(existsSync(fresh));
  // A file renamed to its final name belongs to an import row: its run removes it, not housekeeping.
  a.true(existsSync(waiting));
  a.deepEqual(readdirSync(dir).sort(), [path.basename(fresh), path.basename(waiting)].sort());
  const jobs = (await t.request('GET', '/v1/jobs/housekeeping', { token: admin })).body;
  a.regex(jobs.description, /import uploads a crash left unfinished/);
});
