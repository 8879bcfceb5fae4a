import { BlockList, isIP } from "node:net";
import type { IncomingMessage } from "node:http";

/**
 * The network address a call came from, for limits counted per address (issue #52: exports
 * without a credential). The connection's peer is the caller, unless the peer is one of the
 * service's own reverse proxies (TRUSTED_PROXIES): then it is the address that proxy wrote into
 * `X-Forwarded-For`. The header is read from its right end, where each trusted proxy appended the
 * peer it saw, and never beyond the first address that is not a trusted proxy: everything to the
 * left of it came from the client, which can write any address there (taking the header's first
 * address, as Koa's `ctx.ip` does with `proxy: true`, would let one client count as a new caller
 * on every call).
 */
export class CallerAddresses {
  private constructor(private readonly proxies: BlockList) {}

  /**
   * From TRUSTED_PROXIES: addresses and CIDR ranges separated by commas or spaces, `loopback`
   * (127.0.0.0/8 and ::1: a proxy on the same host) or `none`. Throws a sentence naming a bad entry.
   */
  static fromSetting(text: string): CallerAddresses {
    const proxies = new BlockList();
    for (const entry of text.split(/[\s,]+/).filter(Boolean)) {
      const problem = addEntry(proxies, entry);
      if (problem) throw new Error(problem);
    }
    return new CallerAddresses(proxies);
  }

  /** The caller's address as text (IPv4 in dotted form, also when it arrived as an IPv4-mapped IPv6 address). */
  of(req: IncomingMessage): string {
    let caller = plain(req.socket.remoteAddress ?? "");
    if (!this.trusted(caller)) return caller;
    const forwarded = [req.headers["x-forwarded-for"] ?? []].flat().join(",").split(",");
    for (let i = forwarded.length - 1; i >= 0; i--) {
      const hop = plain(forwarded[i]!.trim());
      // Something that is no address: the hop that wrote it is the last one known.
      if (isIP(hop) === 0) break;
      caller = hop;
      if (!this.trusted(hop)) break;
    }
    return caller;
  }

  private trusted(address: string): boolean {
    const family = isIP(address);
    return family !== 0 && this.proxies.check(address, family === 4 ? "ipv4" : "ipv6");
  }
}

/** The problem with a TRUSTED_PROXIES entry, or null once it is added. */
function addEntry(proxies: BlockList, entry: string): string | null {
  if (entry === "none") return null;
  if (entry === "loopback") {
    proxies.addSubnet("127.0.0.0", 8, "ipv4");
    proxies.addAddress("::1", "ipv6");
    return null;
  }
  const [address = "", bits, extra] = entry.split("/");
  const family = isIP(address);
  const most = family === 4 ? 32 : 128;
  const prefix = bits === undefined ? most : /^\d{1,3}$/.test(bits) ? Number(bits) : NaN;
  if (family === 0 || extra !== undefined || !(prefix >= 0 && prefix <= most)) {
    return (
      `TRUSTED_PROXIES: ${JSON.stringify(entry)} is not an address or a CIDR range; list the reverse proxies' ` +
      "addresses (10.0.0.5, 10.0.0.0/24, fd00::/8), loopback or none, separated by commas."
    );
  }
  proxies.addSubnet(address, prefix, family === 4 ? "ipv4" : "ipv6");
  return null;
}

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, as a dual-stack socket names IPv4 peers) as IPv4. */
function plain(address: string): string {
  return address.startsWith("::ffff:") && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

/** The problem with a TRUSTED_PROXIES setting, or null (for the configuration's check). */
export function trustedProxiesProblem(text: string): string | null {
  try {
    CallerAddresses.fromSetting(text);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
