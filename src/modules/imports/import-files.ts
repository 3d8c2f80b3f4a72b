import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Environment } from '../../config.js';

/** A `.part` file untouched this long belongs to an upload that will never finish. */
export const staleFileMs = 3600 * 1000;

/** Where uploaded import files wait for their job: `<data dir>/imports/<env>/<imp_…>.<csv|ndjson>`, removed when the import ends. */
export class ImportFiles {
  constructor(private readonly dataDir: string) {}

  directoryOf(env: Environment): string {
    return path.join(this.dataDir, 'imports', env);
  }

  async ensureDirectory(env: Environment): Promise<void> {
    await fs.mkdir(this.directoryOf(env), { recursive: true, mode: 0o750 });
  }

  tempPathOf(env: Environment, id: string): string {
    return path.join(this.directoryOf(env), `${id}.part`);
  }

  pathOf(env: Environment, id: string, format: 'csv' | 'ndjson'): string {
    return path.join(this.directoryOf(env), `${id}.${format}`);
  }

  async remove(file: string): Promise<void> {
    await fs.rm(file, { force: true });
  }

  /**
   * Removes the `.part` files of uploads cut off by a crash or kill -9 (a stopped request or CLI
   * copy removes its own): those not written to for `maxAgeMs`. By age rather than all at start:
   * `petcare import` stages its copy here without the appliance's data-dir lock, and an upload in
   * progress writes to its file at every chunk. Returns how many went.
   */
  async sweepStaleParts(env: Environment, now: number, maxAgeMs = staleFileMs): Promise<number> {
    let names: string[];
    try {
      names = await fs.readdir(this.directoryOf(env));
    } catch {
      return 0;
    }
    let removed = 0;
    for (const name of names.filter((n) => n.endsWith('.part'))) {
      const file = path.join(this.directoryOf(env), name);
      const stat = await fs.stat(file).catch(() => null);
      if (stat?.isFile() && now - stat.mtimeMs > maxAgeMs) {
        await this.remove(file);
        removed++;
      }
    }
    return removed;
  }

  /** Every waiting file of an environment (the sandbox reset erases its imports). */
  async removeAll(env: Environment): Promise<void> {
    await fs.rm(this.directoryOf(env), { recursive: true, force: true });
  }
}
