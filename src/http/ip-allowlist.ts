import { BlockList, isIP } from 'node:net';

/** `::ffff:10.0.0.1` (IPv4 seen through a dual-stack socket) is matched as 10.0.0.1. */
export function normalizeIp(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  return mapped?.[1] ?? ip;
}

/** Parses `10.0.0.0/8`, `2001:db8::/32` or a bare address; null when not valid. */
export function parseCidr(value: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const parts = value.trim().split('/');
  if (parts.length > 2) return null; // `10.0.0.0/8/9` is not a CIDR
  const [address = '', prefixText] = parts;
  const version = isIP(address);
  if (version === 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (prefixText !== undefined && !/^\d+$/.test(prefixText))) {
    return null;
  }
  return { address, prefix, family };
}

export type IpMatcher = (ip: string) => boolean;

export function compileAllowlist(cidrs: readonly string[]): IpMatcher {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const parsed = parseCidr(cidr);
    if (parsed) list.addSubnet(parsed.address, parsed.prefix, parsed.family);
  }
  return (ip: string) => {
    const normalized = normalizeIp(ip);
    const version = isIP(normalized);
    if (version === 0) return false;
    return list.check(normalized, version === 4 ? 'ipv4' : 'ipv6');
  };
}
