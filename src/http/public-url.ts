import type { Context } from 'koa';
import type { Config } from '../config.js';

type LinkConfig = Pick<Config, 'publicUrl' | 'allowedHosts'>;

/** The address this connection arrived on, as a URL authority (IPv4-mapped IPv6 as IPv4). */
function listenerAuthority(ctx: Context): string {
  const socket = ctx.req.socket;
  const address = (socket.localAddress ?? '127.0.0.1').replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1');
  const host = address.includes(':') ? `[${address.split('%')[0]}]` : address;
  return `${host}:${socket.localPort ?? 80}`;
}

/**
 * The origin of links the API hands out (calendar entries, document content, OAuth metadata):
 * PETCARE_PUBLIC_URL when set; else the request's Host when PETCARE_ALLOWED_HOSTS names it;
 * else the address the connection arrived on, which no client can forge (a `Host: evil.example`
 * must not end up in a link a cache keeps). Not ctx.origin: since Koa 3 that is the Origin header.
 */
export function publicBaseUrl(config: LinkConfig, ctx: Context): string {
  if (config.publicUrl) return config.publicUrl;
  const host = ctx.host.toLowerCase();
  if (host && config.allowedHosts.includes(host)) return `${ctx.protocol}://${host}`;
  return `http://${listenerAuthority(ctx)}`;
}

/** The start-up warning when links can only follow the listener's address. */
export function linkOriginWarning(config: LinkConfig): string | null {
  if (config.publicUrl || config.allowedHosts.length > 0) return null;
  return 'neither PETCARE_PUBLIC_URL nor PETCARE_ALLOWED_HOSTS is set: links (calendarUrl, contentUrl, OAuth metadata) use the address each connection arrived on; set PETCARE_PUBLIC_URL to the address clients use';
}
