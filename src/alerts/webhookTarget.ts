import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/*
 * Where the alert webhook may post: a signed body with a patient's name and value must not be
 * sent to this machine's own services or to a cloud's metadata service by a mistyped or
 * tampered-with ALERT_WEBHOOK_URL. Refused unless ALERT_WEBHOOK_ALLOW_PRIVATE=1 (a receiver on the
 * same host, a test): loopback, link-local and unspecified addresses, the metadata services that
 * the main clouds keep outside link-local, and each of those IPv4 addresses written inside an
 * IPv6 one (IPv4-mapped, IPv4-compatible, NAT64, 6to4), which reach the same service.
 */

/** IPv4 ranges refused: [network, prefix length, why]. */
const REFUSED_IPV4: Array<[string, number, string]> = [
  ["0.0.0.0", 8, "this host (unspecified)"],
  ["127.0.0.0", 8, "loopback"],
  // AWS, Google Cloud, Azure IMDS, Oracle Cloud, Tencent, Huawei, OpenStack, DigitalOcean: 169.254.169.254 and its neighbours.
  ["169.254.0.0", 16, "link-local"],
  ["100.100.100.200", 32, "Alibaba Cloud's metadata service"],
  ["168.63.129.16", 32, "Azure's WireServer"],
  ["192.0.0.192", 32, "Oracle Cloud Classic's metadata service"],
];

/** IPv6 ranges refused besides the IPv4 forms above. */
const REFUSED_IPV6: Array<[string, number, string]> = [
  ["::", 128, "unspecified"],
  ["::1", 128, "loopback"],
  ["fe80::", 10, "link-local"],
  ["fd00:ec2::254", 128, "AWS's metadata service (IPv6)"],
  ["fd20:ce::254", 128, "Google Cloud's metadata service (IPv6)"],
  ["fd00:c1::a9fe:a9fe", 128, "Oracle Cloud's metadata service (IPv6)"],
];

/** The IPv6 forms of an IPv4 network (its address as two hex groups): each reaches the IPv4 address. */
const IPV4_IN_IPV6: Array<[string, (high: string, low: string, prefix: number) => [string, number]]> = [
  ["IPv4-mapped", (high, low, prefix) => [`::ffff:${high}:${low}`, 96 + prefix]],
  ["IPv4-compatible", (high, low, prefix) => [`::${high}:${low}`, 96 + prefix]], // deprecated, still routed by some stacks
  ["NAT64", (high, low, prefix) => [`64:ff9b::${high}:${low}`, 96 + prefix]],
  ["NAT64, local-use", (high, low, prefix) => [`64:ff9b:1::${high}:${low}`, 96 + prefix]],
  ["6to4", (high, low, prefix) => [`2002:${high}:${low}::`, 16 + prefix]],
];

function ipv4Groups(address: string): [string, string] {
  const [a, b, c, d] = address.split(".").map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}

interface Rule {
  network: string;
  prefix: number;
  family: "ipv4" | "ipv6";
  why: string;
}

const RULES: Rule[] = [
  ...REFUSED_IPV6.map(([network, prefix, why]): Rule => ({ network, prefix, family: "ipv6", why })),
  ...REFUSED_IPV4.flatMap(([network, prefix, why]): Rule[] => {
    const [high, low] = ipv4Groups(network);
    return [
      { network, prefix, family: "ipv4", why },
      ...IPV4_IN_IPV6.map(([form, write]): Rule => {
        const [v6, v6Prefix] = write(high, low, prefix);
        return {
          network: v6,
          prefix: v6Prefix,
          family: "ipv6",
          why: `${why}, ${network}/${prefix} written as IPv6 (${form})`,
        };
      }),
    ];
  }),
];

const REFUSED = new BlockList();
for (const rule of RULES) REFUSED.addSubnet(rule.network, rule.prefix, rule.family);

export function isRefusedAddress(address: string): boolean {
  const family = isIP(address);
  return family !== 0 && REFUSED.check(address, family === 4 ? "ipv4" : "ipv6");
}

/** The URL's host as an address or a name: without IPv6 brackets or a fully qualified name's final dot. */
const hostOf = (url: string) =>
  new URL(url).hostname
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "")
    .toLowerCase();

/** Why an address is refused ("loopback", "Alibaba Cloud's metadata service"), or null. */
function refusedBecause(address: string): string | null {
  if (!isRefusedAddress(address)) return null;
  const rule = RULES.find(({ network, prefix, family }) => {
    const one = new BlockList();
    one.addSubnet(network, prefix, family);
    return family === (isIP(address) === 4 ? "ipv4" : "ipv6") && one.check(address, family);
  });
  return rule?.why ?? "refused";
}

/** Why the URL's host is refused as written ("127.0.0.1: loopback", "localhost: this machine"), or null. */
export function refusedTargetReason(url: string): string | null {
  const host = hostOf(url);
  const why = host === "localhost" || host.endsWith(".localhost") ? "this machine" : refusedBecause(host);
  return why ? `${host}: ${why}` : null;
}

/** A configuration problem when the URL names a refused address or localhost outright; null when it does not. */
export function refusedTargetProblem(url: string): string | null {
  const host = hostOf(url);
  const why = host === "localhost" || host.endsWith(".localhost") ? "this machine" : refusedBecause(host);
  return why
    ? `ALERT_WEBHOOK_URL: points at this machine, a link-local address or a cloud's metadata service (${host}: ` +
        `${why}); alerts go to another system's receiver (set ALERT_WEBHOOK_ALLOW_PRIVATE=1 if a receiver on ` +
        "this host is meant)"
    : null;
}

/** The refused address a URL's name resolves to, and why; null when none (or when the name does not resolve). */
export async function resolvesToRefused(url: string): Promise<string | null> {
  const addresses = await lookup(hostOf(url), { all: true }).catch(() => []);
  const refused = addresses.find(({ address }) => isRefusedAddress(address));
  return refused ? `${refused.address} (${refusedBecause(refused.address)})` : null;
}

/** Before each delivery: the name must not resolve to a refused address either. */
export async function checkTarget(url: string): Promise<void> {
  const addresses = await lookup(hostOf(url), { all: true });
  const refused = addresses.find(({ address }) => isRefusedAddress(address));
  if (refused) {
    throw new Error(
      `the webhook's host resolves to ${refused.address} (${refusedBecause(refused.address)}), which is ` +
        "refused; set ALERT_WEBHOOK_ALLOW_PRIVATE=1 if that is meant",
    );
  }
}
