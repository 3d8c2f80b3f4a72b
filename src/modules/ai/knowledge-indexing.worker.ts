/**
 * The indexing worker (a thread of the job runner's WorkerPool): reads and chunks a knowledge
 * document like the extraction worker, then writes its chunks (and, by trigger, their FTS entries)
 * itself, through a connection of its own to the environment's file. A 25 MB upload is ~25,000
 * chunks: written from the API's thread, their SQLite work and the garbage of holding them there
 * stalled every client (issue 27.4); here the API's thread does none of it.
 *
 * WAL lets one connection write at a time, and the API's connection waits for the lock
 * synchronously (busy_timeout: its event loop would wait too). So each write transaction here is
 * short (`sliceMs`) and runs only in a turn the main thread grants while holding its own connection
 * (src/db/write-turns.ts): the API's queries queue behind a turn without blocking the event loop.
 *
 * Crash and restart: the document's status stays 'extracting' until the job marks it indexed on
 * the main thread, so search never sees a half-written document; the next run starts it over (the
 * old chunks are deleted first, in slices too). Rows are the job's: tenant from the document, no
 * location (ai_chunks are reached through their document).
 */
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { forOneTenant } from '../../db/access-policy.js';
import { newId } from '../../db/ids.js';
import { serveWorkerTask } from '../../jobs/worker-pool.js';
import type { ChunkWriting, WrittenChunks } from './knowledge-extraction.js';
import { pagesOf } from './knowledge-pages.js';
import { chunkPages } from './knowledge-text.js';
import { doneWithTurns, inTurn } from '../../db/write-turns.js';

/** Old chunks removed per transaction (each one also an FTS 'delete'). */
const deleteBatch = 100;

serveWorkerTask<ChunkWriting, WrittenChunks>(async (input) => {
  const pages = await pagesOf(input.source);
  const chunks = chunkPages(pages);
  if (chunks.length === 0) {
    doneWithTurns(input.turns);
    return { pages: pages.length, chunks: 0 };
  }
  const { document: doc } = input;
  const at = () => new Date(Date.now() + input.clockOffsetMs).toISOString();
  const db = forOneTenant(new Database(input.file, { fileMustExist: true }), doc.tenantId, 'one document of the tenant the indexing job checked');
  try {
    db.pragma('busy_timeout = 30000');
    db.pragma('foreign_keys = ON');
    db.pragma('synchronous = NORMAL');
    db.pragma('temp_store = MEMORY');
    // Hand-written SQL: the document's tenant in every statement (the job's access to its own document).
    const oldChunks = db.prepare('select seq from ai_chunks where tenant_id = ? and document_id = ? limit ?').pluck();
    // ai_chunk_vectors go with their chunks (ON DELETE CASCADE).
    const deleteChunks = db.prepare('delete from ai_chunks where tenant_id = ? and seq in (select value from json_each(?))');
    const insert = db.prepare('insert into ai_chunks (id, tenant_id, service_id, document_id, position, page, text) values (?, ?, ?, ?, ?, ?, ?)');
    const progress = db.prepare('update ai_documents set chunks = ?, updated_at = ? where tenant_id = ? and id = ?');
    const totals = db.prepare('update ai_documents set pages = ?, chunks_total = ?, chunks = 0, updated_at = ? where tenant_id = ? and id = ?');
    /** Runs `step` in write transactions, one a turn, until it returns false. */
    const sliced = (step: () => boolean): void => {
      for (;;) {
        const more = inTurn(input.turns, () => db.transaction(step).immediate());
        if (!more) return;
      }
    };

    sliced(() => {
      const seqs = oldChunks.all(doc.tenantId, doc.id, deleteBatch) as number[];
      if (seqs.length > 0) deleteChunks.run(doc.tenantId, JSON.stringify(seqs));
      if (seqs.length === deleteBatch) return true;
      totals.run(pages.length, chunks.length, at(), doc.tenantId, doc.id);
      return false;
    });
    let written = 0;
    sliced(() => {
      const started = performance.now();
      do {
        const c = chunks[written]!;
        insert.run(newId('chk'), doc.tenantId, doc.serviceId, doc.id, c.position, c.page, c.text);
        written++;
      } while (written < chunks.length && performance.now() - started < input.sliceMs);
      progress.run(written, at(), doc.tenantId, doc.id);
      return written < chunks.length;
    });
    return { pages: pages.length, chunks: chunks.length };
  } finally {
    db.close();
    doneWithTurns(input.turns);
  }
});
