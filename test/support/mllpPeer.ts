import net from "node:net";
import { Message } from "node-hl7-client";

/*
 * MLLP over raw sockets, for what a well-behaved client library will not do: send without waiting
 * for each ACK, break the framing, trickle, stall. ACKs are read with node-hl7-client's parser.
 */

export const START = Buffer.from([0x0b]);
export const END = Buffer.from([0x1c, 0x0d]);

/** One message framed as MLLP sends it. */
export const mllpFrame = (er7: string) => Buffer.concat([START, Buffer.from(er7, "utf8"), END]);

export interface RawPeer {
  socket: net.Socket;
  /** Each ACK received so far, as `MSA-1 MSA-2` (`AA LIS-1`). */
  acks: string[];
  /** Everything received so far, as text. */
  received(): string;
  /** Resolves with the milliseconds from the connection to its close (by either side). */
  closed: Promise<number>;
}

/** A raw connection to the listener, reading the ACKs that come back. Resolves once connected, or once closed if the service closes it first. */
export async function connectRaw(port: number): Promise<RawPeer> {
  const socket = net.connect(port, "127.0.0.1");
  socket.setNoDelay(true);
  socket.on("error", () => {});
  const started = Date.now();
  const closed = new Promise<number>((resolve) => socket.on("close", () => resolve(Date.now() - started)));
  const acks: string[] = [];
  let received = "";
  let unread = "";
  socket.on("data", (data) => {
    received += data.toString("utf8");
    unread += data.toString("utf8");
    for (let end = unread.indexOf("\x1c\r"); end >= 0; end = unread.indexOf("\x1c\r")) {
      const ack = new Message({ text: unread.slice(1, end) });
      acks.push(`${ack.get("MSA.1").toString()} ${ack.get("MSA.2").toString()}`);
      unread = unread.slice(end + 2);
    }
  });
  await Promise.race([new Promise((resolve) => socket.once("connect", resolve)), closed]);
  return { socket, acks, received: () => received, closed };
}

/** The milliseconds after which the peer's connection closed, or null if it is still open after `waitMs`. */
export function closedWithin(peer: RawPeer, waitMs: number): Promise<number | null> {
  return Promise.race([peer.closed, new Promise<null>((resolve) => setTimeout(() => resolve(null), waitMs))]);
}

/** What a raw connection receives until the service closes it (or `waitMs` passes), and whether it was closed. */
export async function rawExchange(
  port: number,
  send: Buffer[],
  waitMs: number,
): Promise<{ received: string; closedAfterMs: number | null }> {
  const peer = await connectRaw(port);
  for (const piece of send) peer.socket.write(piece);
  const closedAfterMs = await closedWithin(peer, waitMs);
  peer.socket.destroy();
  return { received: peer.received(), closedAfterMs };
}
