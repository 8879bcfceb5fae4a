import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/*
 * Where the alert webhook may post: a signed body with a patient's name and value must not be
 * sent to this machine's own services or to a cloud's metadata address by a mistyped or
 * tampered-with ALERT_WEBHOOK_URL. Loopback, link-local and unspecified addresses are refused
 * unless ALERT_WEBHOOK_ALLOW_PRIVATE=1 (a receiver on the same host, a test).
 */
const REFUSED = new BlockList();
REFUSED.addSubnet("127.0.0.0", 8, "ipv4");
REFUSED.addSubnet("169.254.0.0", 16, "ipv4");
REFUSED.addSubnet("0.0.0.0", 8, "ipv4");
REFUSED.addAddress("::1", "ipv6");
REFUSED.addAddress("::", "ipv6");
REFUSED.addSubnet("fe80::", 10, "ipv6");
REFUSED.addSubnet("::ffff:127.0.0.0", 104, "ipv6");
REFUSED.addSubnet("::ffff:169.254.0.0", 112, "ipv6");

export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && REFUSED.check(address, family === 4 ? "ipv4" : "ipv6");
}

const hostOf = (url: string) => new URL(url).hostname.replace(/^\[|\]$/g, "");

/** A configuration problem when the URL names a refused address or localhost outright; null when it does not. */
export function refusedTargetProblem(url: string): string | null {
  const host = hostOf(url);
  return host === "localhost" || host.endsWith(".localhost") || isRefusedAddress(host)
    ? "ALERT_WEBHOOK_URL: points at this machine or a link-local address; alerts go to another system's receiver (set ALERT_WEBHOOK_ALLOW_PRIVATE=1 if a receiver on this host is meant)"
    : null;
}

/** Before each delivery: the name must not resolve to a refused address either. */
export async function checkTarget(url: string): Promise<void> {
  const addresses = await lookup(hostOf(url), { all: true });
  const refused = addresses.find(({ address }) => isRefusedAddress(address));
  if (refused) throw new Error(`the webhook's host resolves to ${refused.address}, a loopback or link-local address; set ALERT_WEBHOOK_ALLOW_PRIVATE=1 if that is meant`);
}
