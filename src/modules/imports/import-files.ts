import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Environment } from '../../config.js';

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

  /** Every waiting file of an environment (the sandbox reset erases its imports). */
  async removeAll(env: Environment): Promise<void> {
    await fs.rm(this.directoryOf(env), { recursive: true, force: true });
  }
}
