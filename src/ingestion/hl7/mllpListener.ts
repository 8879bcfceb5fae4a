import { readFileSync } from "node:fs";
import net from "node:net";
import tls from "node:tls";
import type { Logger } from "pino";
import type { IngestionDeps } from "../../../commands/ingestion/pushReports.ts";
import type { CredentialCheck } from "../../credentials/credentialCheck.ts";
import type { CredentialWatch } from "../../credentials/credentialWatch.ts";
import type { ServiceMetrics } from "../../metrics/serviceMetrics.ts";
import { refuseMessage } from "./acks.ts";
import { er7Messages, mshField } from "./er7Messages.ts";
import { MllpConnection, type FrameAnswer, type MllpLimits, type MllpServing } from "./mllpConnection.ts";
import { readMessage } from "./pushHl7Messages.ts";
import { SEND_AGAIN, SenderGroups, type SenderAnswer } from "./senderGroups.ts";

/*
 * HL7 v2 over MLLP (contract D.5): each message framed 0x0B … 0x1C 0x0D, its ACK framed the same
 * way, on a connection a laboratory system keeps open. The client key travels in MSH-8 (Security)
 * of every message. A connection's messages are answered in the order they came, and stored in
 * that order with the messages of the same key on other connections (SenderGroups). At most
 * `maxConnections` connections are open at once, one more closed as soon as it is accepted; each
 * connection's own limits (idle timeout, frame deadline, frame sizes) are in mllpConnection.ts.
 */

/** Connections refused over the cap are logged once a burst: a burst ends after this long without one. */
const BURST_QUIET_MS = 10_000;

export interface MllpOptions extends MllpLimits {
  port: number;
  /** Connections open at once; one more is closed as soon as it is accepted. */
  maxConnections: number;
  /** PEM files: with both, the listener speaks TLS. */
  tlsCertFile?: string;
  tlsKeyFile?: string;
}

export class MllpListener {
  private server: net.Server | null = null;
  private readonly connections = new Map<net.Socket, MllpConnection>();
  private readonly groups: SenderGroups;
  private readonly serving: MllpServing;
  private burst: NodeJS.Timeout | null = null;

  constructor(
    deps: IngestionDeps,
    credentials: CredentialCheck,
    watch: CredentialWatch,
    private readonly metrics: ServiceMetrics,
    private readonly log: Logger,
    private readonly options: MllpOptions,
  ) {
    this.groups = new SenderGroups(deps, credentials, metrics, log);
    this.serving = {
      answerFrame: (text) => this.answerFrame(text),
      isValidKey: (key) => this.groups.isValidKey(key),
      // A connection ends with the key it was let in by (issue #51), whichever process revoked it.
      watchKey: (key, ended) => watch.watch({ kind: "secret", digests: credentials.digestsOf(key) }, ended),
      metrics,
      log,
      limits: options,
    };
    metrics.watchMllpConnections(() => this.connections.size);
  }

  /** Listens, and resolves with the port (the one asked for, or the one given for 0). */
  async start(): Promise<number> {
    const { tlsCertFile, tlsKeyFile } = this.options;
    const onConnection = (socket: net.Socket) => {
      this.connections.set(socket, new MllpConnection(socket, this.serving));
      socket.on("close", () => this.connections.delete(socket));
    };
    this.server = tlsCertFile && tlsKeyFile ? tls.createServer({ cert: readFileSync(tlsCertFile), key: readFileSync(tlsKeyFile) }, onConnection) : net.createServer(onConnection);
    const server = this.server;
    // Node closes a connection over the cap as it accepts it, before any byte is read (or TLS spoken).
    server.maxConnections = this.options.maxConnections;
    server.on("drop", () => this.refusedOverCap());
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
    if (this.burst) clearTimeout(this.burst);
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    const drained = [...this.connections.values()].map((connection) => connection.stop());
    const cut = setTimeout(() => {
      for (const socket of this.connections.keys()) socket.destroy();
    }, graceMs);
    await Promise.all(drained);
    await closed;
    clearTimeout(cut);
  }

  private refusedOverCap(): void {
    this.metrics.mllpConnectionClosed("cap");
    if (this.burst) {
      this.burst.refresh();
      return;
    }
    this.log.warn(
      { maxConnections: this.options.maxConnections },
      'MLLP: HL7_MLLP_MAX_CONNECTIONS connections are open; new ones are closed at once until some close (counted in dialysis_hub_mllp_connections_closed_total{reason="cap"})',
    );
    this.burst = setTimeout(() => (this.burst = null), BURST_QUIET_MS).unref();
  }

  /** The answers to a frame's messages, in order; the messages are read now and stored with their key's next group. */
  private answerFrame(text: string): Promise<FrameAnswer[]> {
    const { messages } = er7Messages(text);
    if (messages.length === 0) {
      this.metrics.hl7Answered("mllp", { tenant: "", client: "" }, ["AR"]);
      return Promise.resolve([{ code: "AR", ack: refuseMessage(text, "The frame holds no HL7 message: frame one ORU^R01 message, beginning with its MSH segment."), keyValid: null, key: "" }]);
    }
    return Promise.all(
      messages.map(async (er7): Promise<FrameAnswer> => {
        const key = mshField(er7, 8);
        try {
          return { ...(await this.groups.answer(key, er7, readMessage(er7))), key };
        } catch (error) {
          // Answered all the same: a connection's later ACKs must not wait on this one forever.
          this.log.error({ err: error }, "an MLLP message could not be handled");
          this.metrics.hl7Answered("mllp", { tenant: "", client: "" }, ["AR"]);
          return { code: "AR" as const, ack: refuseMessage(er7, SEND_AGAIN), keyValid: null, key };
        }
      }),
    );
  }
}
