/**
 * The search index's merge worker (a thread of the job runner's WorkerPool): FTS5's incremental
 * merge steps (compactSearchIndex in knowledge-indexing.ts), through a connection of its own to the
 * environment's file. A step was a write on the API's thread: 65–150 ms each during the bench's three
 * 25 MB uploads, the longest stalls of its event loop that remained (issue 27.4). Each step is one
 * write transaction in a turn the main thread grants (src/db/write-turns.ts), as the indexing
 * worker writes chunks: the API's queries queue behind a turn without blocking the event loop.
 */
import Database from 'better-sqlite3';
import { acrossTenants } from '../../db/access-policy.js';
import { serveWorkerTask } from '../../jobs/worker-pool.js';
import { doneWithTurns, inTurn } from '../../db/write-turns.js';
import type { SearchMerge, SearchMerged } from './knowledge-extraction.js';

serveWorkerTask<SearchMerge, SearchMerged>((input) => {
  const db = acrossTenants(new Database(input.file, { fileMustExist: true }), "FTS5's own tables: the merge works on the whole index");
  try {
    db.pragma('busy_timeout = 30000');
    db.pragma('synchronous = NORMAL');
    // FTS5 keeps the list of its b-trees in one record of its data table (rowid 10): a step that merged nothing leaves it as it was.
    const structure = db.prepare('select block from ai_chunks_fts_data where id = 10').pluck();
    const step = (pages: number): boolean => {
      const before = structure.get() as Buffer | undefined;
      db.prepare(`insert into ai_chunks_fts(ai_chunks_fts, rank) values('merge', ${pages})`).run();
      const after = structure.get() as Buffer | undefined;
      return before !== undefined && after !== undefined && !before.equals(after);
    };
    let steps = 0;
    let pages = -input.pages;
    while (steps < input.maxSteps) {
      const work = pages;
      const changed = inTurn(input.turns, () => db.transaction(() => step(work)).immediate());
      steps++;
      pages = input.pages;
      if (!changed) return { steps, finished: true };
    }
    return { steps, finished: false };
  } finally {
    db.close();
    doneWithTurns(input.turns);
  }
});
