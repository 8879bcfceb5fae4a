import { readFileSync } from "node:fs";
import net from "node:net";
import tls from "node:tls";
import type { Logger } from "pino";
import type { IngestionDeps } from "../../../commands/ingestion/pushReports.ts";
import type { CredentialCheck } from "../../credentials/credentialCheck.ts";
import type { CredentialWatch } from "../../credentials/credentialWatch.ts";
import { firstNonUtf8 } from "../../firstNonUtf8.ts";
import type { ServiceMetrics } from "../../metrics/serviceMetrics.ts";
import { refuseMessage } from "./acks.ts";
import { er7Messages, mshField } from "./er7Messages.ts";
import { notUtf8Frame } from "./er7NotUtf8.ts";
import { addressGroup, MllpAdmission, type AdmittedConnection } from "./mllpAdmission.ts";
import { MllpConnection, type FrameAnswer, type MllpLimits, type MllpServing } from "./mllpConnection.ts";
import { readMessage, type ReadMessage } from "./pushHl7Messages.ts";
import { SEND_AGAIN, SenderGroups } from "./senderGroups.ts";
import type { MessageKeeper } from "../../messages/receivedMessage.ts";

/*
 * HL7 v2 over MLLP (contract D.5): each message framed 0x0B … 0x1C 0x0D, its ACK framed the same
 * way, on a connection a laboratory system keeps open. The client key travels in MSH-8 (Security)
 * of every message. A connection's messages are answered in the order they came, and stored in
 * that order with the messages of the same key on other connections (SenderGroups). At most
 * `maxConnections` connections are open at once; which one gives way to a new one is decided in
 * mllpAdmission.ts (keyless ones first, limited per address). Each connection's own limits (idle
 * and keyless timeouts, frame deadline, frame sizes, unanswered frames) are in mllpConnection.ts.
 */

/** Connections refused over the cap are logged once a burst: a burst ends after this long without one. */
const BURST_QUIET_MS = 10_000;

export interface MllpOptions extends MllpLimits {
  port: number;
  /** Connections open at once; past it a keyless one is closed to make room, else the new one. */
  maxConnections: number;
  /** Keyless connections open at once from one address (an IPv6 /64). */
  keylessPerAddress: number;
  /** PEM files: with both, the listener speaks TLS. */
  tlsCertFile?: string;
  tlsKeyFile?: string;
}

export class MllpListener {
  private server: net.Server | null = null;
  private readonly connections = new Map<net.Socket, MllpConnection>();
  private readonly admission: MllpAdmission;
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
    /** Where each message is kept with its ACK (contract G.5); null: not kept. */
    messages: MessageKeeper | null = null,
  ) {
    this.groups = new SenderGroups(deps, credentials, metrics, log, messages);
    this.admission = new MllpAdmission(options);
    this.serving = {
      answerFrame: (bytes) => this.answerFrame(bytes),
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
    // TLS is spoken over the accepted socket, so that a socket still in its handshake holds a slot
    // under the same rules (and the same keyless timeout) as any other.
    const secureContext =
      tlsCertFile && tlsKeyFile
        ? tls.createSecureContext({ cert: readFileSync(tlsCertFile), key: readFileSync(tlsKeyFile) })
        : null;
    const server = (this.server = net.createServer((socket) => this.accepted(socket, secureContext)));
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

  /** Lets the socket in (making room for it, keyless connections first) or closes it before reading a byte. */
  private accepted(socket: net.Socket, secureContext: tls.SecureContext | null): void {
    socket.on("error", () => {});
    const address = addressGroup(socket.remoteAddress);
    const admission = this.admission.admit(address);
    if (!admission.admitted) {
      socket.destroy();
      return this.refused(admission.reason);
    }
    const stream = secureContext ? new tls.TLSSocket(socket, { isServer: true, secureContext }) : socket;
    const connection = new MllpConnection(stream, this.serving);
    const admitted: AdmittedConnection = {
      address,
      keyless: () => connection.keyless(),
      evictable: () => connection.evictable(),
      evict: () => {
        connection.evict();
        socket.destroy();
      },
    };
    this.admission.add(admitted);
    this.connections.set(stream, connection);
    // Either side's close ends it (with TLS the stream and the socket under it close apart).
    for (const side of new Set([stream, socket])) {
      side.on("close", () => {
        this.admission.remove(admitted);
        this.connections.delete(stream);
        socket.destroy();
      });
    }
  }

  private refused(reason: "cap" | "keyless_per_address"): void {
    this.metrics.mllpConnectionClosed(reason);
    if (this.burst) {
      this.burst.refresh();
      return;
    }
    const { maxConnections, keylessPerAddress } = this.options;
    this.log.warn(
      { maxConnections, keylessPerAddress, reason },
      reason === "cap"
        ? "MLLP: HL7_MLLP_MAX_CONNECTIONS connections are open, none of them keyless and idle; new ones are " +
            'closed at once until some close (counted in dialysis_hub_mllp_connections_closed_total{reason="cap"})'
        : "MLLP: an address holds HL7_MLLP_KEYLESS_PER_ADDRESS connections without a valid key, each with a " +
            "message being answered; its new ones are closed at once (counted in " +
            'dialysis_hub_mllp_connections_closed_total{reason="keyless_per_address"})',
    );
    this.burst = setTimeout(() => (this.burst = null), BURST_QUIET_MS).unref();
  }

  /**
   * The answers to a frame's messages, in order; the messages are read now and stored with their
   * key's next group. A frame that is not UTF-8 has each message refused (AR, naming the first bad
   * byte), after its key is checked as any message's is.
   */
  private answerFrame(bytes: Buffer): Promise<FrameAnswer[]> {
    const text = bytes.toString("utf8");
    const { messages } = er7Messages(text);
    if (messages.length === 0) {
      this.metrics.hl7Answered("mllp", { tenant: "", client: "" }, ["AR"]);
      return Promise.resolve([
        {
          code: "AR",
          ack: refuseMessage(
            text,
            "The frame holds no HL7 message: frame one ORU^R01 message, beginning with its MSH segment.",
          ),
          keyValid: null,
          key: "",
        },
      ]);
    }
    const bad = firstNonUtf8(bytes, text);
    const notUtf8 = bad ? notUtf8Frame(text, bad, messages.length) : null;
    return Promise.all(
      messages.map(async (er7): Promise<FrameAnswer> => {
        const key = mshField(er7, 8);
        try {
          const read: ReadMessage = notUtf8
            ? { refusal: { code: "AR", ack: refuseMessage(er7, notUtf8.reason, notUtf8.problems) } }
            : readMessage(er7);
          return { ...(await this.groups.answer(key, er7, read)), key };
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
