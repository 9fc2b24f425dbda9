// The one rule for where settings may make the server connect (webhook receivers, a site's AI
// provider, a site's SMTP server): public addresses only, unless the operator allows private ones
// for that surface (BLUME_WEBHOOKS_ALLOW_PRIVATE, BLUME_AI_ALLOW_PRIVATE, BLUME_MAIL_ALLOW_PRIVATE).
// A name is checked by the lookup the connection itself uses, so the address checked is the address
// connected, whatever the name resolves to later (DNS rebinding). Decisions 0047, 0116 and 0117.
import { lookup } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

const PRIVATE_V4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE_V4.addSubnet(network, prefix, 'ipv4');
}

// IPv6 ranges refused whole: the IPv4-compatible block (`::a.b.c.d`, deprecated, `::` and `::1`
// included), NAT64 prefixes (they reach IPv4 through a local translator), Teredo and the other IETF
// protocol assignments, documentation, unique-local, link-local, site-local, SRv6 and multicast.
const PRIVATE_V6 = new BlockList();
for (const [network, prefix] of [
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['3fff::', 20],
  ['5f00::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  PRIVATE_V6.addSubnet(network, prefix, 'ipv6');
}

/** The 16 bytes of an IPv6 address (Node has already said it is one). */
function ipv6Bytes(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)?.[1];
  if (dotted) {
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -dotted.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const groups = (part: string | undefined) => (part ? part.split(':') : []);
  const left = groups(head);
  const right = groups(tail);
  const all =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return all.flatMap((group) => {
    const value = parseInt(group, 16);
    return [value >> 8, value & 0xff];
  });
}

/** The IPv4 address an IPv6 one carries and would reach: mapped, translated (RFC 2765) and 6to4 forms. */
function embeddedIpv4(bytes: number[]): string | undefined {
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  const quad = (at: number) => bytes.slice(at, at + 4).join('.');
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return quad(12);
  if (zeros(0, 8) && bytes[8] === 0xff && bytes[9] === 0xff && zeros(10, 12)) return quad(12);
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return quad(2);
  return undefined;
}

/** Whether an address is one settings may reach by default: not private, loopback, link-local or reserved, however written. */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return !PRIVATE_V4.check(address, 'ipv4');
  if (family !== 6) return false;
  const bytes = ipv6Bytes(address);
  const ipv4 = embeddedIpv4(bytes);
  if (ipv4 !== undefined) return isPublicAddress(ipv4);
  return !PRIVATE_V6.check(address.replace(/%.*$/, ''), 'ipv6');
}

/** A refused target; its message names the host and address, never anything the target said. */
export class TargetRefusedError extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(
      host === address
        ? `${host} is a private, loopback or link-local address`
        : `${host} resolves to ${address}, a private, loopback or link-local address`,
    );
    this.name = 'TargetRefusedError';
  }
}

/** The host of a URL without the brackets of an IPv6 literal. */
export function hostOfUrl(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

/** A `lookup` for connections (http, https, net) that fails unless every address of the name is public. */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { all: true, family: options.family ?? 0 }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked) return callback(new TargetRefusedError(hostname, blocked.address), '', 0);
    if ((options as { all?: boolean }).all)
      return (callback as unknown as (e: null, a: typeof addresses) => void)(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};

/**
 * The addresses of a host, each checked unless private ones are allowed; throws TargetRefusedError
 * for a non-public one and the resolver's error for a name that does not resolve.
 */
export async function resolveTarget(host: string, allowPrivate: boolean): Promise<string[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  const addresses = isIP(bare)
    ? [bare]
    : (
        await new Promise<Array<{ address: string }>>((resolve, reject) =>
          lookup(bare, { all: true }, (e, a) => (e ? reject(e) : resolve(a))),
        )
      ).map((a) => a.address);
  if (!allowPrivate) {
    const blocked = addresses.find((address) => !isPublicAddress(address));
    if (blocked !== undefined) throw new TargetRefusedError(bare, blocked);
  }
  return addresses;
}
