import ipaddr from 'ipaddr.js';

/**
 * Who is asking, for the per-address limits (developer applications, sign-in failures): the
 * client's IPv4 address, or the /64 of an IPv6 one (a single host usually holds a whole /64).
 * `req.ip` honours JOBSITE_TRUST_PROXY.
 */
export function clientBucket(ip: string): string {
  try {
    const addr = ipaddr.process(ip);
    if (addr.kind() === 'ipv6') {
      const parts = (addr as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
      return `${parts.join(':')}::/64`;
    }
    return addr.toString();
  } catch {
    return ip;
  }
}
