import test from 'ava';
import SQLite from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase, runStatement, selectRows, type DatabaseHandle } from '../../src/db/database.js';
import { WriteBatches } from '../../src/db/write-batches.js';

/** Group commit on a real SQLite file; a second connection plays another process looking in. */
interface Fixture {
  handle: DatabaseHandle;
  writes: WriteBatches;
  other: SQLite.Database;
  close(): Promise<void>;
}

function open(): Fixture {
  const dir = mkdtempSync(path.join(tmpdir(), 'petcare-batches-'));
  const handle = openDatabase(path.join(dir, 'test.sqlite'));
  handle.sqlite.exec(`
    create table notes (id text primary key, body text not null);
    create table parents (id text primary key);
    create table children (id text primary key, parent_id text references parents(id) deferrable initially deferred);
  `);
  const other = new SQLite(path.join(dir, 'test.sqlite'), { readonly: true });
  return {
    handle,
    writes: new WriteBatches(handle.db),
    other,
    async close() {
      other.close();
      await handle.db.destroy();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const noteIds = (db: SQLite.Database) => db.prepare('select id from notes order by id').pluck().all() as string[];
const insertNote = (id: string) => (trx: Parameters<Parameters<WriteBatches['run']>[0]>[0]) =>
  runStatement(trx, 'insert into notes (id, body) values (?, ?)', [id, 'x']);

test('concurrent writes commit together, and each is answered only once it is visible to other connections', async (t) => {
  const f = open();
  try {
    const seen: string[][] = [];
    await Promise.all(
      ['a', 'b', 'c'].map((id) =>
        f.writes.run(insertNote(id)).then(() => {
          seen.push(noteIds(f.other));
        }),
      ),
    );
    for (const ids of seen) t.deepEqual(ids, ['a', 'b', 'c']);
  } finally {
    await f.close();
  }
});

test('a write that fails after writing is rolled back alone; the others in its batch commit', async (t) => {
  const f = open();
  try {
    const results = await Promise.allSettled([
      f.writes.run(insertNote('kept-1')),
      f.writes.run(async (trx) => {
        await insertNote('undone')(trx);
        throw new Error('business rule');
      }),
      f.writes.run(insertNote('kept-2')),
    ]);
    t.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    t.is((results[1] as PromiseRejectedResult).reason.message, 'business rule');
    t.deepEqual(noteIds(f.other), ['kept-1', 'kept-2']);
  } finally {
    await f.close();
  }
});

test('when the COMMIT fails, every write of the batch fails and none is kept', async (t) => {
  const f = open();
  try {
    const results = await Promise.allSettled([
      f.writes.run(insertNote('n1')),
      // A deferred foreign key is checked at COMMIT: this dangling child makes the whole COMMIT fail.
      f.writes.run((trx) => runStatement(trx, 'insert into children (id, parent_id) values (?, ?)', ['c1', 'missing'])),
      f.writes.run(insertNote('n2')),
    ]);
    t.deepEqual(
      results.map((r) => r.status),
      ['rejected', 'rejected', 'rejected'],
    );
    t.regex(String((results[0] as PromiseRejectedResult).reason), /FOREIGN KEY/);
    t.deepEqual(noteIds(f.other), []);
    // The next batch starts clean.
    await f.writes.run(insertNote('after'));
    t.deepEqual(noteIds(f.other), ['after']);
  } finally {
    await f.close();
  }
});

test('reads on the database never see an open batch: they wait for its COMMIT', async (t) => {
  const f = open();
  try {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let opened!: (trx: Parameters<Parameters<WriteBatches['run']>[0]>[0]) => void;
    const open_ = new Promise<Parameters<Parameters<WriteBatches['run']>[0]>[0]>((resolve) => (opened = resolve));
    const write = f.writes.run(async (trx) => {
      await insertNote('pending')(trx);
      opened(trx); // the row is written, uncommitted
      await held; // the batch stays open
    });
    const trx = await open_;
    let readDone = false;
    const read = selectRows<{ id: string }>(f.handle.db, 'select id from notes', []).then((rows) => {
      readDone = true;
      return rows.map((r) => r.id);
    });
    // The connection keeps serving the open batch (a statement inside it completes) while the
    // outside read stays queued: better-sqlite3 is synchronous, so once the event loop has turned,
    // a read that could run would have.
    t.deepEqual(
      (await selectRows<{ id: string }>(trx, 'select id from notes', [])).map((r) => r.id),
      ['pending'],
    );
    await new Promise<void>((resolve) => setImmediate(resolve));
    t.false(readDone, 'the read waits behind the open transaction');
    t.deepEqual(noteIds(f.other), [], 'nothing committed yet');
    release();
    await write;
    t.deepEqual(await read, ['pending']);
  } finally {
    await f.close();
  }
});

test('writes queued while a batch is committing go into the next one', async (t) => {
  const f = open();
  try {
    const first = f.writes.run(insertNote('first'));
    await first;
    const later = await Promise.all(['x', 'y'].map((id) => f.writes.run(insertNote(id))));
    t.is(later.length, 2);
    t.deepEqual(noteIds(f.other), ['first', 'x', 'y']);
  } finally {
    await f.close();
  }
});
