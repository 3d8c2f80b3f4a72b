import { spawnSync } from 'node:child_process';
import test from 'ava';

/**
 * The image runs Node 24; better-sqlite3 12.x aborted there (SIGABRT in a GC finalizer,
 * `Statement::~Statement` → `RemoveEnvironmentCleanupHook`) once enough prepared statements were
 * collected. These run the suite's own Node and a child that provokes exactly that.
 */
test('the suite runs on Node 22 or newer (the image ships 24)', (t) => {
  const major = Number(process.versions.node.split('.')[0]);
  t.true(major >= 22, `running on Node ${process.versions.node}; use scripts/node24.sh or npm scripts (node_modules/.bin/node)`);
});

test('200,000 prepared statements collected under forced GC do not abort the process', (t) => {
  // The form that aborted 3 times of 3 on Node 24.21 with better-sqlite3 12.11.1 (exit 134).
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(':memory:');
    for (let i = 0; i < 200000; i++) {
      db.prepare('select ' + (i % 997));
      if (i % 50000 === 0) globalThis.gc();
    }
    db.close();
    console.log('ok');
  `;
  const child = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 50_000 });
  t.is(child.signal, null, `child died with ${child.signal}: ${child.stderr.slice(-500)}`);
  t.is(child.status, 0, child.stderr.slice(-500));
  t.is(child.stdout.trim(), 'ok');
});
