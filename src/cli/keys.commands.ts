import type { Config } from '../config.js';
import { openSigningKeys } from '../data-dir.js';
import type { CliCommand } from './command.js';

function keysRotate(config: Config, json: boolean, out: (text: string) => void): void {
  const kid = openSigningKeys(config, { existingOnly: true }).rotate();
  if (json) return out(JSON.stringify({ kid }, null, 2));
  out(
    `added signing key ${kid}; a running appliance signs with it within a second or two, no restart needed (older keys keep verifying until they are rotated out)`,
  );
}

export const keyCommands: Record<string, CliCommand> = {
  // The keys file, not the databases: no session is opened.
  'keys rotate': { options: [], run: async (ctx) => keysRotate(ctx.config, ctx.values.json, ctx.out) },
};
