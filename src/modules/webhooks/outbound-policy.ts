import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/**
 * Where webhooks may go (SSRF guard). Refused by default: loopback, unspecified, link-local,
 * cloud metadata, multicast and reserved addresses, in any spelling (IPv4-mapped and NAT64
 * IPv6 forms included). Private LAN ranges are allowed: an appliance's receivers live there.
 * `webhookAllowHosts` (host names, addresses or CIDRs) opens refused ones on purpose.
 * The same policy is applied when an endpoint is registered and on every connection, to the
 * address actually connected (a custom DNS lookup), so a name cannot be re-pointed in between.
 */

interface Rule {
  reason: string;
  list: BlockList;
}

function rule(reason: string, entries: Array<[string, number, 'ipv4' | 'ipv6']>): Rule {
  const list = new BlockList();
  for (const [address, prefix, family] of entries) list.addSubnet(address, prefix, family);
  return { reason, list };
}

// Order matters only for the reason named: the first match wins. BlockList matches the
// IPv4-mapped IPv6 form (::ffff:127.0.0.1) against IPv4 rules by itself.
const refusedRules: Rule[] = [
  rule('cloud metadata address', [
    ['169.254.169.254', 32, 'ipv4'],
    ['100.100.100.200', 32, 'ipv4'],
    ['fd00:ec2::254', 128, 'ipv6'],
  ]),
  rule('loopback address', [
    ['127.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ]),
  rule('unspecified address', [
    ['0.0.0.0', 8, 'ipv4'],
    ['::', 128, 'ipv6'],
  ]),
  rule('link-local address', [
    ['169.254.0.0', 16, 'ipv4'],
    ['fe80::', 10, 'ipv6'],
  ]),
  rule('multicast address', [
    ['224.0.0.0', 4, 'ipv4'],
    ['ff00::', 8, 'ipv6'],
  ]),
  rule('reserved address', [['240.0.0.0', 4, 'ipv4']]),
  // Deprecated IPv4-compatible IPv6 (::a.b.c.d): no legitimate receiver uses it.
  rule('IPv4-compatible IPv6 address', [['::', 96, 'ipv6']]),
];

/** Host names refused whatever they resolve to (metadata services reachable by name). */
const refusedNames = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

// The well-known NAT64 prefix and the local-use one (RFC 6052, RFC 8215), used as /96 prefixes:
// the IPv4 address in their last 32 bits is checked too.
const nat64 = rule('', [
  ['64:ff9b::', 96, 'ipv6'],
  ['64:ff9b:1::', 48, 'ipv6'],
]).list;

/** Expands an IPv6 text to its 16 bytes (for the IPv4 embedded in a NAT64 address). */
function ipv6Bytes(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.flatMap((g) => {
    const value = parseInt(g || '0', 16);
    return [value >> 8, value & 0xff];
  });
}

export const stripBrackets = (host: string): string => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);
const normalizeName = (host: string): string => stripBrackets(host).toLowerCase().replace(/\.$/, '');

export class OutboundPolicy {
  private readonly allowedNames = new Set<string>();
  private readonly allowedAddresses = new BlockList();

  /** `allowHosts`: host names, IP addresses or CIDRs (config webhookAllowHosts). Throws on a malformed entry. */
  constructor(allowHosts: readonly string[]) {
    for (const raw of allowHosts) {
      const entry = stripBrackets(raw.trim());
      const [address, prefix, ...extra] = entry.split('/');
      if (extra.length) throw new Error(`PETCARE_WEBHOOK_ALLOW_HOSTS: "${raw}" is not a valid address or CIDR`);
      const family = isIP(address ?? '');
      if (family !== 0) {
        const bits = prefix === undefined ? (family === 4 ? 32 : 128) : Number(prefix);
        if (!Number.isInteger(bits) || bits < 0 || bits > (family === 4 ? 32 : 128) || (prefix !== undefined && !/^\d+$/.test(prefix))) {
          throw new Error(`PETCARE_WEBHOOK_ALLOW_HOSTS: "${raw}" is not a valid address or CIDR`);
        }
        this.allowedAddresses.addSubnet(address!, bits, family === 4 ? 'ipv4' : 'ipv6');
      } else if (prefix === undefined && /^[a-z0-9.-]+$/i.test(entry)) {
        this.allowedNames.add(normalizeName(entry));
      } else {
        throw new Error(`PETCARE_WEBHOOK_ALLOW_HOSTS: "${raw}" is not a host name, address or CIDR`);
      }
    }
  }

  /** Why an address is refused by default, or null if it is an ordinary unicast address. */
  refusedReason(address: string): string | null {
    const family = isIP(address);
    if (family === 0) return 'not an IP address';
    const type = family === 4 ? 'ipv4' : 'ipv6';
    for (const { reason, list } of refusedRules) if (list.check(address, type)) return reason;
    if (family === 6 && nat64.check(address, 'ipv6')) {
      const bytes = ipv6Bytes(address);
      const embedded = bytes.slice(12).join('.');
      const inner = this.refusedReason(embedded);
      if (inner) return `NAT64 form of a ${inner}`;
    }
    return null;
  }

  private allowedByList(host: string, address: string | null): boolean {
    if (this.allowedNames.has(normalizeName(host))) return true;
    if (address === null) return false;
    const family = isIP(address);
    return family !== 0 && this.allowedAddresses.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }

  /** Null when `host` (as written in the URL) may be connected at `address`; else why not. */
  check(host: string, address: string): string | null {
    const reason = this.refusedReason(address);
    if (reason === null || this.allowedByList(host, address)) return null;
    return `${address} is a ${reason}`;
  }

  /** Names refused before any lookup (metadata services). */
  refusedName(host: string): string | null {
    const name = normalizeName(host);
    if (isIP(name) !== 0) return null;
    if (refusedNames.has(name) && !this.allowedByList(host, null)) return `${name} is a cloud metadata host`;
    return null;
  }

  /**
   * A `lookup` for http(s).request: resolves every address of the name and refuses the connection
   * if any of them is refused, so the address connected is always one that was checked.
   */
  readonly lookup = (
    hostname: string,
    options: { family?: number | string; all?: boolean },
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    const byName = this.refusedName(hostname);
    if (byName) {
      callback(ssrfError(byName), '', 0);
      return;
    }
    const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : Number(options.family ?? 0);
    dnsLookup(hostname, { all: true, family: family === 4 || family === 6 ? family : 0 }, (err, addresses) => {
      if (err) return callback(err, '', 0);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      for (const { address } of addresses) {
        const refused = this.check(hostname, address);
        if (refused) return callback(ssrfError(`${hostname} resolves to ${refused}`), '', 0);
      }
      if (options.all) callback(null, addresses);
      else callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };

  /**
   * The registration check: scheme, no credentials, and every address the host resolves to now.
   * Returns the problem as a sentence for `errors[].message`, or null.
   */
  async checkUrl(raw: string): Promise<string | null> {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      return 'is not a valid URL';
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
    if (url.username !== '' || url.password !== '') return 'must not contain credentials (user:password@)';
    if (url.hash !== '') return 'must not contain a fragment (#…)';
    const host = stripBrackets(url.hostname);
    if (host === '') return 'must name a host';
    if (isIP(host) !== 0) {
      const refused = this.check(host, host);
      return refused ? `is refused: ${refused} (allow it with PETCARE_WEBHOOK_ALLOW_HOSTS)` : null;
    }
    const byName = this.refusedName(host);
    if (byName) return `is refused: ${byName}`;
    const addresses = await new Promise<LookupAddress[] | Error>((resolve) =>
      dnsLookup(host, { all: true }, (err, found) => resolve(err ?? found)),
    );
    if (addresses instanceof Error) return `host ${host} could not be resolved (${(addresses as NodeJS.ErrnoException).code ?? addresses.message})`;
    for (const { address } of addresses) {
      const refused = this.check(host, address);
      if (refused) return `is refused: ${host} resolves to ${refused} (allow it with PETCARE_WEBHOOK_ALLOW_HOSTS)`;
    }
    return null;
  }
}

export class SsrfError extends Error {
  readonly code = 'ESSRF';
}

const ssrfError = (message: string): SsrfError => new SsrfError(`refused by the outbound policy: ${message}`);
