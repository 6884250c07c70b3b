/**
 * Server-side request forgery guard for every URL the service fetches on a user's behalf
 * (webhook deliveries, photo imports by URL): only http(s), no credentials, and every address
 * the host resolves to must be public, unless the operator allowed its range
 * (JOBSITE_WEBHOOK_ALLOW_PRIVATE). The same judgement runs at registration (checkOutboundUrl)
 * and again when a socket connects (guardedLookup, see outbound.ts), so a name that turns
 * private after registration (DNS rebinding) is still refused.
 */
import dns from 'node:dns';
import net from 'node:net';
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** CIDR ranges that are allowed even though they are not public. Build it with parseAllowList. */
export interface AllowList {
  /** The ranges as given, normalised; also the key under which outbound.ts shares one agent. */
  readonly cidrs: readonly string[];
  readonly ranges: readonly (readonly [Address, number])[];
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Every address a host name resolves to; injectable so tests can simulate DNS rebinding. */
export type HostResolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: HostResolver = (hostname) => dns.promises.lookup(hostname, { all: true });

/** Error code of a connection refused by the guard at connect time. */
export const SSRF_BLOCKED = 'ERR_SSRF_BLOCKED';

export class SsrfBlockedError extends Error {
  readonly code = SSRF_BLOCKED;
}

export type UrlCheck =
  | { ok: true; url: URL; addresses: string[] }
  | { ok: false; code: 'invalid_url' | 'ssrf_blocked' | 'dns_failure'; reason: string };

/** Parses one allow-list entry: `10.0.0.0/8`, `fd00::/8`, or a single address (a /32 or /128). */
export function parseCidr(text: string): [Address, number] {
  const entry = text.trim();
  const slash = entry.indexOf('/');
  const ip = slash === -1 ? entry : entry.slice(0, slash);
  const kind = net.isIP(ip);
  if (kind === 0) throw new Error(`"${entry}" is not an IP address or CIDR range (e.g. 10.0.0.0/8 or fd00::/8)`);
  const max = kind === 4 ? 32 : 128;
  const prefixText = slash === -1 ? String(max) : entry.slice(slash + 1);
  const prefix = Number(prefixText);
  if (!/^\d{1,3}$/.test(prefixText) || prefix > max) {
    throw new Error(`"${entry}" has an invalid prefix length (0 to ${max})`);
  }
  const address = parseAddress(ip)!;
  const network = networkAddress(address, prefix);
  if (network.toString() !== address.toString()) {
    throw new Error(`"${entry}" has bits set after the prefix; did you mean ${network.toString()}/${prefix}?`);
  }
  return [address, prefix];
}

/** Throws an Error naming the first bad entry; config.ts validates with it at start-up. */
export function parseAllowList(cidrs: readonly string[]): AllowList {
  const ranges = cidrs.filter((c) => c.trim() !== '').map(parseCidr);
  return Object.freeze({
    cidrs: Object.freeze(ranges.map(([a, p]) => `${a.toString()}/${p}`)),
    ranges: Object.freeze(ranges),
  });
}

export const NO_PRIVATE_RANGES: AllowList = parseAllowList([]);

export type AddressVerdict = { ok: true } | { ok: false; why: string };

const OK: AddressVerdict = { ok: true };

const RANGE_WORDS: Record<string, string> = {
  loopback: 'a loopback address',
  private: 'a private-network address',
  uniqueLocal: 'a private-network (unique local) address',
  linkLocal: 'a link-local address',
  carrierGradeNat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'the broadcast address',
  unspecified: 'an unspecified address',
  reserved: 'a reserved (documentation, benchmarking or future-use) address',
  benchmarking: 'a benchmarking address',
};

const describeRange = (range: string) => RANGE_WORDS[range] ?? `a special-purpose address (${range})`;

/** 2000::/3: the only IPv6 space IANA hands out for global unicast. */
const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');

/**
 * Is this address (as DNS or a URL gives it) one the service may connect to? Public unicast
 * addresses are; so is anything inside the allow list. IPv6 forms that carry an IPv4 address
 * (mapped, NAT64, 6to4, Teredo) are judged by the IPv4 addresses they carry.
 */
export function judgeAddress(text: string, allow: AllowList): AddressVerdict {
  const address = parseAddress(text);
  if (!address) return { ok: false, why: 'not an IP address' };
  return judge(address, allow);
}

function judge(address: Address, allow: AllowList): AddressVerdict {
  if (isAllowed(address, allow)) return OK;
  if (address.kind() === 'ipv4') {
    const range = address.range();
    return range === 'unicast' ? OK : { ok: false, why: describeRange(range) };
  }
  const v6 = address as ipaddr.IPv6;
  const range = v6.range();
  const parts = v6.parts;
  switch (range) {
    case 'ipv4Mapped':
      return judgeEmbedded(allow, 'an IPv4-mapped address of', v6.toIPv4Address());
    case 'rfc6052':
      // 64:ff9b::/96 is the well-known NAT64 prefix; 64:ff9b:1::/48 is for local use only.
      if (parts[2] !== 0) return { ok: false, why: 'a local-use NAT64 address' };
      return judgeEmbedded(allow, 'a NAT64 address of', v4FromWords(parts[6]!, parts[7]!));
    case '6to4':
      return judgeEmbedded(allow, 'a 6to4 address of', v4FromWords(parts[1]!, parts[2]!));
    case 'teredo':
      // Teredo carries the server's IPv4 in clear and the client's with every bit inverted.
      return judgeEmbedded(allow, 'a Teredo address of', v4FromWords(parts[2]!, parts[3]!),
        v4FromWords(~parts[6]! & 0xffff, ~parts[7]! & 0xffff));
  }
  if (range !== 'unicast') return { ok: false, why: describeRange(range) };
  if (!v6.match(GLOBAL_UNICAST_V6)) return { ok: false, why: 'an address outside the global unicast range (2000::/3)' };
  return OK;
}

function judgeEmbedded(allow: AllowList, label: string, ...embedded: ipaddr.IPv4[]): AddressVerdict {
  for (const v4 of embedded) {
    const verdict = judge(v4, allow);
    if (!verdict.ok) return { ok: false, why: `${label} ${v4.toString()}, which is ${verdict.why}` };
  }
  return OK;
}

function isAllowed(address: Address, allow: AllowList): boolean {
  for (const [network, prefix] of allow.ranges) {
    if (network.kind() === address.kind() && address.match(network, prefix)) return true;
  }
  return false;
}

const v4FromWords = (high: number, low: number) =>
  new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

function networkAddress(address: Address, prefix: number): Address {
  const bytes = address.toByteArray();
  return ipaddr.fromByteArray(bytes.map((byte, i) => {
    const keep = Math.max(0, Math.min(8, prefix - i * 8));
    return byte & ((0xff00 >> keep) & 0xff);
  }));
}

/**
 * Parses an address as node, DNS or a URL writes it ([::1], fe80::1%eth0, ::ffff:1.2.3.4).
 * ipaddr.js reads "::1.2.3.4" (IPv4-compatible) as IPv4-mapped, so dotted IPv6 forms are
 * first normalised by the WHATWG URL parser, which keeps them apart.
 */
function parseAddress(text: string): Address | null {
  let ip = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = ip.indexOf('%');
  if (zone !== -1) ip = ip.slice(0, zone);
  const kind = net.isIP(ip);
  if (kind === 4) return ipaddr.IPv4.parse(ip);
  if (kind !== 6) return null;
  if (ip.includes('.')) ip = new URL(`http://[${ip}]/`).hostname.slice(1, -1);
  return ipaddr.IPv6.parse(ip);
}

/** The scheme and credentials rules, without any DNS: cheap enough for every request. */
export function parseOutboundUrl(text: string | URL): { ok: true; url: URL } | { ok: false; reason: string } {
  let url: URL;
  try {
    url = typeof text === 'string' ? new URL(text) : text;
  } catch {
    return { ok: false, reason: 'The URL is not a valid absolute URL.' };
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    return { ok: false, reason: `Only http and https URLs are allowed (got ${url.protocol.slice(0, -1)}).` };
  }
  if (url.username !== '' || url.password !== '') {
    return { ok: false, reason: 'The URL must not contain a user name or password; send credentials in a header or the path.' };
  }
  if (url.hostname === '') return { ok: false, reason: 'The URL has no host.' };
  return { ok: true, url };
}

/** A URL's host without IPv6 brackets, as net.connect and DNS want it. */
export const hostOf = (url: URL) => url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;

/**
 * Is this URL one the service may send requests to? Resolves the host and judges every
 * address; the reason is a sentence fit for a 400 response.
 */
export async function checkOutboundUrl(
  text: string | URL,
  allow: AllowList = NO_PRIVATE_RANGES,
  resolve: HostResolver = systemResolver,
): Promise<UrlCheck> {
  const parsed = parseOutboundUrl(text);
  if (!parsed.ok) return { ok: false, code: 'invalid_url', reason: parsed.reason };
  const { url } = parsed;
  const host = hostOf(url);

  let addresses: string[];
  if (net.isIP(host)) {
    addresses = [host];
  } else {
    try {
      addresses = (await resolve(host)).map((r) => r.address);
    } catch (err) {
      return { ok: false, code: 'dns_failure', reason: dnsFailureReason(host, err) };
    }
    if (addresses.length === 0) return { ok: false, code: 'dns_failure', reason: dnsFailureReason(host, null) };
  }
  const refusal = firstRefusal(host, addresses, allow);
  if (refusal) return { ok: false, code: 'ssrf_blocked', reason: refusal };
  return { ok: true, url, addresses };
}

/** A sentence naming the first address that is not allowed, or null if all are. */
export function firstRefusal(host: string, addresses: readonly string[], allow: AllowList): string | null {
  for (const address of addresses) {
    const verdict = judgeAddress(address, allow);
    if (!verdict.ok) {
      const subject = host === address ? `The address ${address}` : `The host ${host} resolves to ${address}, which`;
      return `${subject} is ${verdict.why}; only public addresses are allowed` +
        ' unless the operator allows the range with JOBSITE_WEBHOOK_ALLOW_PRIVATE.';
    }
  }
  return null;
}

export function dnsFailureReason(host: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  const detail = code === 'ENOTFOUND' || code === 'ENODATA' ? 'no such host'
    : code === 'EAI_AGAIN' ? 'temporary DNS failure'
    : code ?? 'no addresses';
  return `The host ${host} could not be resolved (${detail}).`;
}

/**
 * A `lookup` for net.connect / tls.connect that resolves with `resolve`, refuses with an
 * SsrfBlockedError when any address is not allowed, and otherwise answers in the shape node
 * asked for (one address, or all of them when autoSelectFamily is on).
 */
export function guardedLookup(allow: AllowList, resolve: HostResolver = systemResolver): net.LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then((all) => {
      const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family;
      const addresses = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
      if (addresses.length === 0) {
        const err: NodeJS.ErrnoException = new Error(dnsFailureReason(hostname, null));
        err.code = 'ENOTFOUND';
        callback(err, '', 0);
        return;
      }
      const refusal = firstRefusal(hostname, addresses.map((a) => a.address), allow);
      if (refusal) {
        callback(new SsrfBlockedError(refusal), '', 0);
      } else if (options.all) {
        callback(null, addresses);
      } else {
        callback(null, addresses[0]!.address, addresses[0]!.family);
      }
    }, (err: NodeJS.ErrnoException) => callback(err, '', 0));
  };
}
