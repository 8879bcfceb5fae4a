import { readFileSync } from "node:fs";
import { isIP, type Socket } from "node:net";

/**
 * What the kernel holds of each TCP connection's sent bytes not yet acknowledged by the peer
 * (Linux: the tx_queue column of /proc/net/tcp and tcp6), for telling a slow reader from one that
 * stopped. Node sees a connection's progress only when the kernel asks for more bytes, which it
 * does once a third of its send buffer has drained: with a buffer of 4 MB (loopback, or a proxy
 * on the same host) a reader taking 200 kB/s showed no progress for six seconds at a time. The
 * kernel's count moves as the peer takes bytes.
 *
 * `read()` answers null where there is no /proc (the counts are then not known).
 */
export function readKernelSendQueues(): Map<string, number> | null {
  const queues = new Map<string, number>();
  let found = false;
  for (const file of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text: string;
    try {
      text = readFileSync(file, "latin1");
    } catch {
      continue;
    }
    found = true;
    for (const line of text.split("\n").slice(1)) {
      // sl local_address rem_address st tx_queue:rx_queue …
      const fields = line.trim().split(/\s+/);
      if (fields.length < 5) continue;
      const colon = fields[4]!.indexOf(":");
      queues.set(`${fields[1]}-${fields[2]}`, parseInt(fields[4]!.slice(0, colon), 16));
    }
  }
  return found ? queues : null;
}

/** The key of a connection in `readKernelSendQueues`'s answer, or null when its addresses are not known. */
export function kernelQueueKey(socket: Socket): string | null {
  const local = procAddress(socket.localAddress, socket.localPort, socket.localFamily);
  const remote = procAddress(socket.remoteAddress, socket.remotePort, socket.remoteFamily);
  return local && remote ? `${local}-${remote}` : null;
}

/**
 * An address and port as /proc/net/tcp writes them: the address's 32-bit words each in the host's
 * byte order (little-endian on every machine Node runs on), in hex, and the port in hex.
 */
function procAddress(address: string | undefined, port: number | undefined, family: string | undefined): string | null {
  if (!address || port === undefined) return null;
  const portHex = port.toString(16).toUpperCase().padStart(4, "0");
  const version = isIP(address);
  // An IPv6 socket names an IPv4 peer ::ffff:a.b.c.d; should it give the bare IPv4 address, tcp6 still writes it mapped.
  if (version === 4)
    return `${family === "IPv6" ? wordsHex(ipv6Bytes(`::ffff:${address}`)) : wordsHex(ipv4Bytes(address))}:${portHex}`;
  if (version === 6) return `${wordsHex(ipv6Bytes(address))}:${portHex}`;
  return null;
}

function ipv4Bytes(address: string): number[] {
  return address.split(".").map(Number);
}

/** The 16 bytes of an IPv6 address (with `::`, a dotted IPv4 tail, a zone). */
function ipv6Bytes(address: string): number[] {
  let text = address.split("%")[0]!;
  const dotted = /:(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a = 0, b = 0, c = 0, d = 0] = ipv4Bytes(dotted[1]!);
    text = `${text.slice(0, dotted.index)}:${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split("::") as [string, string | undefined];
  const words = (part: string | undefined) => (part ? part.split(":") : []);
  const given = [...words(head), ...words(tail)];
  const all =
    tail === undefined ? given : [...words(head), ...Array<string>(8 - given.length).fill("0"), ...words(tail)];
  return all.flatMap((word) => {
    const value = parseInt(word, 16);
    return [value >> 8, value & 0xff];
  });
}

/** Bytes in network order as /proc writes them: each group of four as one little-endian word, in hex. */
function wordsHex(bytes: number[]): string {
  let hex = "";
  for (let i = 0; i < bytes.length; i += 4) {
    for (let j = i + 3; j >= i; j--) hex += bytes[j]!.toString(16).toUpperCase().padStart(2, "0");
  }
  return hex;
}
