import { readFileSync } from "node:fs";
import net from "node:net";
import tls from "node:tls";
import type { Logger } from "pino";
import type { IngestionDeps } from "../../../commands/ingestion/pushReports.ts";
import type { ServiceMetrics } from "../../metrics/serviceMetrics.ts";
import { refuseMessage } from "./acks.ts";
import { er7Messages, mshField } from "./er7Messages.ts";
import { readMessage } from "./pushHl7Messages.ts";
import { SenderGroups } from "./senderGroups.ts";

/*
 * HL7 v2 over MLLP (contract D.5): each message framed 0x0B … 0x1C 0x0D, its ACK framed the same
 * way, on a connection a laboratory system keeps open. The client key travels in MSH-8 (Security)
 * of every message. A connection's messages are answered in the order they came, and stored in
 * that order with the messages of the same key on other connections (SenderGroups); a frame over
 * MAX_FRAME_BYTES is answered AR and the connection closed, and a connection that sends nothing
 * (or only part of a frame) for `requestTimeoutMs` is cut.
 */

const START = 0x0b;
const END = Buffer.from([0x1c, 0x0d]);
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

export interface MllpOptions {
  port: number;
  requestTimeoutMs: number;
  /** PEM files: with both, the listener speaks TLS. */
  tlsCertFile?: string;
  tlsKeyFile?: string;
}

const frame = (text: string) => Buffer.concat([Buffer.from([START]), Buffer.from(text, "utf8"), END]);

export class MllpListener {
  private server: net.Server | null = null;
  private readonly connections = new Map<net.Socket, { idle: Promise<void>; closing: boolean }>();
  private readonly groups: SenderGroups;

  constructor(
    deps: IngestionDeps,
    private readonly metrics: ServiceMetrics,
    private readonly log: Logger,
    private readonly options: MllpOptions,
  ) {
    this.groups = new SenderGroups(deps, metrics, log);
  }

  /** Listens, and resolves with the port (the one asked for, or the one given for 0). */
  async start(): Promise<number> {
    const { tlsCertFile, tlsKeyFile } = this.options;
    const onConnection = (socket: net.Socket) => this.serve(socket);
    this.server = tlsCertFile && tlsKeyFile ? tls.createServer({ cert: readFileSync(tlsCertFile), key: readFileSync(tlsKeyFile) }, onConnection) : net.createServer(onConnection);
    const server = this.server;
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(this.options.port, () => resolve());
    });
    return (server.address() as net.AddressInfo).port;
  }

  /** Takes no new connection, lets each open one finish the messages it sent, then closes it (cut after `graceMs`). */
  async stop(graceMs: number): Promise<void> {
    const server = this.server;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    const drained = [...this.connections].map(async ([socket, state]) => {
      state.closing = true;
      await state.idle;
      socket.end();
    });
    const cut = setTimeout(() => {
      for (const socket of this.connections.keys()) socket.destroy();
    }, graceMs);
    await Promise.all(drained);
    await closed;
    clearTimeout(cut);
  }

  private serve(socket: net.Socket): void {
    const state = { idle: Promise.resolve(), closing: false };
    this.connections.set(socket, state);
    socket.on("close", () => this.connections.delete(socket));
    socket.on("error", () => {});
    // Silent for this long, or a frame begun and left unfinished: the peer is gone or too slow.
    socket.setTimeout(this.options.requestTimeoutMs, () => socket.destroy());
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    let inFrame = false;
    socket.on("data", (data: Buffer) => {
      // Stopping: the messages already received are answered, nothing new is taken.
      if (state.closing) return;
      let at = 0;
      while (at < data.length) {
        if (!inFrame) {
          const start = data.indexOf(START, at);
          if (start < 0) return; // bytes between frames carry nothing
          inFrame = true;
          at = start + 1;
          continue;
        }
        const end = data.indexOf(END, at);
        const piece = data.subarray(at, end < 0 ? data.length : end);
        pending.push(piece);
        pendingBytes += piece.length;
        if (pendingBytes > MAX_FRAME_BYTES) {
          socket.end(frame(refuseMessage("", `The frame is over ${MAX_FRAME_BYTES / 1024 / 1024} MB; send one message a frame.`)));
          socket.removeAllListeners("data");
          return;
        }
        if (end < 0) return;
        const text = Buffer.concat(pending).toString("utf8");
        pending = [];
        pendingBytes = 0;
        inFrame = false;
        at = end + END.length;
        const answered = this.answerFrame(text);
        state.idle = state.idle.then(async () => {
          const acks = await answered;
          if (socket.destroyed) return;
          // A group's ACKs are settled together: one write to the socket for all of them.
          socket.cork();
          for (const ack of acks) socket.write(frame(ack));
          process.nextTick(() => socket.uncork());
        });
      }
    });
  }

  /** The ACKs of a frame's messages, in order; the messages are read now and stored with their key's next group. */
  private answerFrame(text: string): Promise<string[]> {
    const { messages } = er7Messages(text);
    if (messages.length === 0) {
      this.metrics.hl7Answered("mllp", { tenant: "", client: "" }, ["AR"]);
      return Promise.resolve([refuseMessage(text, "The frame holds no HL7 message: frame one ORU^R01 message, beginning with its MSH segment.")]);
    }
    return Promise.all(
      messages.map(async (er7) => {
        try {
          return (await this.groups.answer(mshField(er7, 8), er7, readMessage(er7))).ack;
        } catch (error) {
          // Answered all the same: a connection's later ACKs must not wait on this one forever.
          this.log.error({ err: error }, "an MLLP message could not be handled");
          this.metrics.hl7Answered("mllp", { tenant: "", client: "" }, ["AR"]);
          return refuseMessage(er7, "The service could not handle this message now; send it again.");
        }
      }),
    );
  }
}
