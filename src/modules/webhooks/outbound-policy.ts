import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where webhooks may go (SSRF guard), by the IANA special-purpose address registries as
 * ipaddr.js classifies them: only global unicast addresses, plus the private LAN ranges an
 * appliance's receivers live in (RFC 1918 and IPv6 unique-local; `allowPrivate: false` refuses
 * them too). Everything else is refused — loopback, unspecified, link-local, carrier-grade NAT,
 * benchmarking (198.18/15), IETF protocol assignments (192.0.0/24), documentation, multicast,
 * reserved — and IPv6 forms that carry an IPv4 address (IPv4-mapped, SIIT, NAT64, 6to4, Teredo)
 * are judged by the address they carry. Cloud metadata addresses and names are refused even in
 * private ranges. `webhookAllowHosts` (host names, addresses or CIDRs) opens refused ones on
 * purpose. The same policy applies when an endpoint is registered and on every connection, to
 * the address actually connected (a custom DNS lookup), so a name cannot be re-pointed between.
 */

/** A DNS resolution of every address of a name (injectable so tests control what a name resolves to). */
export type Resolve = (hostname: string, family: 0 | 4 | 6) => Promise<LookupAddress[]>;

const systemResolve: Resolve = (hostname, family) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, family }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

export interface OutboundPolicyOptions {
  /** RFC 1918 and unique-local receivers (PETCARE_WEBHOOK_ALLOW_PRIVATE, default true). */
  allowPrivate?: boolean;
  resolve?: Resolve;
}

/** Metadata services, refused whatever range they sit in (fd00:ec2::254 is unique-local). */
const metadataAddresses = new Set(['169.254.169.254', '100.100.100.200', 'fd00:ec2::254']);

/** Host names refused whatever they resolve to (metadata services reachable by name). */
const refusedNames = new Set(['metadata.google.internal', 'metadata', 'instance-data', 'instance-data.ec2.internal']);

const rangeNames: Record<string, string> = {
  unspecified: 'unspecified address',
  broadcast: 'broadcast address',
  multicast: 'multicast address',
  linkLocal: 'link-local address',
  loopback: 'loopback address',
  carrierGradeNat: 'carrier-grade NAT (shared) address',
  reserved: 'reserved address',
  as112: 'AS112 anycast address',
  as112v6: 'AS112 anycast address',
  amt: 'AMT relay anycast address',
  benchmarking: 'benchmarking address',
  discard: 'discard-only address',
  deprecatedSiteLocal: 'deprecated site-local address',
  deprecatedOrchid: 'ORCHID address',
  orchid2: 'ORCHID address',
  droneRemoteIdProtocolEntityTags: 'DRIP entity tag address',
  private: 'private address',
  uniqueLocal: 'unique-local address',
};

const ipv4Of = (high: number, low: number): ipaddr.IPv4 => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/** The IPv4 addresses an IPv6 address carries, by its transition form, with the form's name. */
function embeddedIpv4(address: ipaddr.IPv6, range: string): { form: string; inner: ipaddr.IPv4[] } | null {
  const p = address.parts;
  switch (range) {
    case 'ipv4Mapped':
      // ::ffff:a.b.c.d is how a dual-stack socket writes an IPv4 peer: named as the IPv4 address it is.
      return { form: '', inner: [ipv4Of(p[6]!, p[7]!)] };
    case 'rfc6145':
      return { form: 'SIIT form', inner: [ipv4Of(p[6]!, p[7]!)] };
    case 'rfc6052':
      return { form: 'NAT64 form', inner: [ipv4Of(p[6]!, p[7]!)] };
    case '6to4':
      return { form: '6to4 form', inner: [ipv4Of(p[1]!, p[2]!)] };
    case 'teredo':
      // RFC 4380 §4: the server's address in bits 32–63, the client's obfuscated (inverted) in the last 32.
      return { form: 'Teredo form', inner: [ipv4Of(p[2]!, p[3]!), ipv4Of(~p[6]! & 0xffff, ~p[7]! & 0xffff)] };
    default:
      return null;
  }
}

export const stripBrackets = (host: string): string => (host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host);
const normalizeName = (host: string): string => stripBrackets(host).toLowerCase().replace(/\.$/, '');

export class OutboundPolicy {
  private readonly allowedNames = new Set<string>();
  private readonly allowedAddresses = new BlockList();
  private readonly allowPrivate: boolean;
  private readonly resolve: Resolve;

  /** `allowHosts`: host names, IP addresses or CIDRs (config webhookAllowHosts). Throws on a malformed entry. */
  constructor(allowHosts: readonly string[], options: OutboundPolicyOptions = {}) {
    this.allowPrivate = options.allowPrivate ?? true;
    this.resolve = options.resolve ?? systemResolve;
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

  /** Why an address is refused by default, or null if a receiver may live there. */
  refusedReason(address: string): string | null {
    if (isIP(address) === 0) return 'not an IP address';
    return this.classify(ipaddr.parse(stripBrackets(address).split('%')[0]!));
  }

  private classify(parsed: ipaddr.IPv4 | ipaddr.IPv6): string | null {
    if (metadataAddresses.has(parsed.toString())) return 'cloud metadata address';
    const range = parsed.range();
    if (parsed.kind() === 'ipv6') {
      const carried = embeddedIpv4(parsed as ipaddr.IPv6, range);
      if (carried) {
        for (const inner of carried.inner) {
          const reason = this.classify(inner);
          if (reason) return carried.form ? `${carried.form} of a ${reason}` : reason;
        }
        return null;
      }
      // Deprecated IPv4-compatible IPv6 (::a.b.c.d): no legitimate receiver uses it.
      if (range === 'unicast' && (parsed as ipaddr.IPv6).parts.slice(0, 6).every((part) => part === 0)) return 'IPv4-compatible IPv6 address';
    }
    if (range === 'unicast') return null;
    if (range === 'private' || range === 'uniqueLocal') {
      return this.allowPrivate ? null : `${rangeNames[range]} (PETCARE_WEBHOOK_ALLOW_PRIVATE=false)`;
    }
    return rangeNames[range] ?? `special-purpose address (${range})`;
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
    this.resolve(hostname, family === 4 || family === 6 ? family : 0).then(
      (addresses) => {
        if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
        for (const { address } of addresses) {
          const refused = this.check(hostname, address);
          if (refused) return callback(ssrfError(`${hostname} resolves to ${refused}`), '', 0);
        }
        if (options.all) callback(null, addresses);
        else callback(null, addresses[0]!.address, addresses[0]!.family);
      },
      (err: NodeJS.ErrnoException) => callback(err, '', 0),
    );
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
    const addresses = await this.resolve(host, 0).catch((err: Error) => err);
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
