import type { Context } from 'koa';
import type { Config } from '../config.js';

/**
 * The origin of links the API hands out (calendar entries, document content, OAuth metadata):
 * PETCARE_PUBLIC_URL when set, else the address the caller used. Not ctx.origin: since Koa 3
 * that is the request's Origin header, null for a plain server-to-server call.
 */
export const publicBaseUrl = (config: Pick<Config, 'publicUrl'>, ctx: Context): string =>
  config.publicUrl ?? `${ctx.protocol}://${ctx.host || 'localhost'}`;
