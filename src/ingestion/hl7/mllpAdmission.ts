import net from "node:net";

/*
 * Which MLLP connections may be open (issue #52). Anyone who can reach the port may connect, and a
 * connection shows a key only inside its messages (MSH-8), so the slots must not go to whoever
 * opened the most sockets first: a new connection is always let in, unless every connection it
 * could displace is one that showed a valid key or is being answered. Room is made by closing the
 * oldest keyless, idle connection: first of the new connection's own address when that address
 * already holds its share of keyless connections, else of anyone when the process holds its cap.
 * A laboratory that connects and sends its message at once is therefore served however many idle
 * sockets are held, from its own address or any other.
 */

/** An open connection as the admission sees it. */
export interface AdmittedConnection {
  /** The address group it came from (addressGroup). */
  readonly address: string;
  /** Has not shown a valid key (MSH-8) yet, or the last one it showed was not valid. */
  keyless(): boolean;
  /** Keyless and answering nothing: nothing is lost when it is closed. */
  evictable(): boolean;
  /** Closes it to make room for a new connection. */
  evict(): void;
}

export interface AdmissionLimits {
  /** Connections open at once in the process. */
  maxConnections: number;
  /** Keyless connections open at once from one address group. */
  keylessPerAddress: number;
}

/** What became of a new connection: let in (after closing what had to give way), or refused, and why. */
export type Admission = { admitted: true } | { admitted: false; reason: "cap" | "keyless_per_address" };

export class MllpAdmission {
  /** Open connections, oldest first (a Set keeps the order they were added in). */
  private readonly open = new Set<AdmittedConnection>();

  constructor(private readonly limits: AdmissionLimits) {}

  /** Makes room for a connection from `address` (closing keyless ones), or says why there is none. */
  admit(address: string): Admission {
    const keylessHere = [...this.open].filter((connection) => connection.address === address && connection.keyless());
    if (keylessHere.length >= this.limits.keylessPerAddress) {
      const oldest = keylessHere.find((connection) => connection.evictable());
      if (!oldest) return { admitted: false, reason: "keyless_per_address" };
      this.evict(oldest);
    }
    if (this.open.size >= this.limits.maxConnections) {
      const oldest = [...this.open].find((connection) => connection.evictable());
      if (!oldest) return { admitted: false, reason: "cap" };
      this.evict(oldest);
    }
    return { admitted: true };
  }

  add(connection: AdmittedConnection): void {
    this.open.add(connection);
  }

  remove(connection: AdmittedConnection): void {
    this.open.delete(connection);
  }

  private evict(connection: AdmittedConnection): void {
    this.open.delete(connection);
    connection.evict();
  }
}

/**
 * The address a connection is counted under: an IPv4 address as it is (also when written as
 * IPv4-mapped IPv6), an IPv6 address by its /64, the block a single subscriber is usually given.
 */
export function addressGroup(remoteAddress: string | undefined): string {
  if (!remoteAddress) return "";
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(remoteAddress);
  if (mapped) return mapped[1]!;
  if (!net.isIPv6(remoteAddress)) return remoteAddress;
  const [head = "", tail = ""] = remoteAddress.toLowerCase().split("%", 1)[0]!.split("::");
  const headGroups = head ? head.split(":") : [];
  const tailGroups = remoteAddress.includes("::") ? (tail ? tail.split(":") : []) : [];
  const groups = [
    ...headGroups,
    ...Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill("0"),
    ...tailGroups,
  ];
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
