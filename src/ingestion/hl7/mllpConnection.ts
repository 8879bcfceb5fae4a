import type net from "node:net";
import type { Logger } from "pino";
import type { CredentialEnd } from "../../credentials/credentialWatch.ts";
import type { MllpCloseReason, ServiceMetrics } from "../../metrics/serviceMetrics.ts";
import { refuseMessage } from "./acks.ts";
import { er7Messages, mshField } from "./er7Messages.ts";
import { MAX_FRAME_BYTES, MllpFrames, type FrameEvent } from "./mllpFrames.ts";
import { MISSING_KEY, SEND_AGAIN, UNKNOWN_KEY, type SenderAnswer } from "./senderGroups.ts";

/*
 * One MLLP connection (mllpListener.ts): its frames answered in order, and its limits
 * (docs/operations.md, "MLLP limits"). A connection has no login of its own, the key being in
 * MSH-8 of each message: it is authenticated while the last key it showed was valid, a message
 * answered with its key found, or the MSH-8 of a large frame looked up. Until then a frame may hold
 * `unauthenticatedFrameBytes`; one that grows past that has its own MSH-8 looked up, reading paused
 * meanwhile: valid, it goes on to MAX_FRAME_BYTES; missing or unknown, AR and close. A connection
 * that has shown no valid key and is answering nothing is closed after `keylessTimeoutMs`, and the
 * listener may close it sooner to make room (mllpAdmission.ts).
 *
 * Reading stops while the connection has `maxUnackedFrames` frames (or MAX_UNACKED_BYTES of them) not yet
 * answered, or while its ACKs wait to be written because the peer does not read them: a sender that
 * never reads its ACKs fills its own buffers, not the process's memory. Reading goes on where it
 * stopped once ACKs are written and the socket drained.
 */

/** What of an unfinished frame is read for its MSH segment: the key to look up, or the message a refusal answers. */
const HEAD_BYTES = 16 * 1024;
/** How long a connection refused with AR has to read it and close before it is cut. */
const REFUSED_GRACE_MS = 2000;
/** The bytes of frames a connection may have taken and not yet answered: four of the largest frames. */
export const MAX_UNACKED_BYTES = 4 * MAX_FRAME_BYTES;

export interface MllpLimits {
  /** A connection silent this long, or silent mid-frame, is cut. */
  requestTimeoutMs: number;
  /** A frame must arrive whole within this of its start block. */
  frameDeadlineMs: number;
  /** The bytes a frame may hold while its connection has shown no valid key. */
  unauthenticatedFrameBytes: number;
  /** A connection that has shown no valid key and is answering nothing is closed after this long. */
  keylessTimeoutMs: number;
  /** Frames taken from a connection and not yet answered; reading stops at this many. */
  maxUnackedFrames: number;
}

/** A message's answer, and the key (MSH-8) it was sent with. */
export type FrameAnswer = SenderAnswer & { key: string };

/** What a connection asks of its listener. */
export interface MllpServing {
  /** The answers to a frame's messages, in order. */
  answerFrame(bytes: Buffer): Promise<FrameAnswer[]>;
  isValidKey(key: string): Promise<boolean>;
  /** Calls `ended` once when `key` stops working (revoked, expired, replaced); answers the function that stops watching. */
  watchKey(key: string, ended: (end: CredentialEnd) => void): () => void;
  metrics: ServiceMetrics;
  log: Logger;
  limits: MllpLimits;
}

const framed = (text: string) =>
  Buffer.concat([Buffer.from([0x0b]), Buffer.from(text, "utf8"), Buffer.from([0x1c, 0x0d])]);

export class MllpConnection {
  /** Settles once every frame received so far is answered (its ACK written, or the connection gone). */
  idle: Promise<void> = Promise.resolve();
  private stopping = false;
  /** Closed or closing for a limit: nothing more is taken or counted. */
  private ended = false;
  private authenticated = false;
  /** The valid key the connection showed last, watched so that the connection ends with it (issue #51). */
  private watchedKey: string | null = null;
  private unwatch: () => void = () => {};
  private readonly frames: MllpFrames;
  private deadline: NodeJS.Timeout | undefined;
  /** The events of the last bytes read; kept while reading is paused, and taken up after it. */
  private events: Iterator<FrameEvent> | null = null;
  /** Why reading is paused: a large frame's key being looked up, or too many ACKs not yet written and drained. */
  private pausedFor: "key" | "acks" | null = null;
  /** Frames taken and not yet answered (their ACKs not yet handed to the socket), and their bytes. */
  private unacked = { frames: 0, bytes: 0 };
  private keylessClock: NodeJS.Timeout | undefined;

  constructor(
    private readonly socket: net.Socket,
    private readonly serving: MllpServing,
  ) {
    const { requestTimeoutMs, unauthenticatedFrameBytes } = serving.limits;
    this.frames = new MllpFrames(unauthenticatedFrameBytes);
    socket.on("close", () => {
      clearTimeout(this.deadline);
      clearTimeout(this.keylessClock);
      this.unwatch();
    });
    socket.on("error", () => {});
    // Silent for this long, or a frame begun and left unfinished: the peer is gone or too slow.
    socket.setTimeout(requestTimeoutMs, () => this.cut("idle"));
    socket.on("data", (data: Buffer) => {
      // Stopping: the messages already received are answered, nothing new is taken.
      if (this.stopping) return;
      this.events = this.frames.read(data);
      this.readEvents();
    });
    socket.on("drain", () => this.readOnIfAnswered());
    this.keylessTimer();
  }

  /** Has shown no valid key: the connection the listener closes first when it needs room. */
  keyless(): boolean {
    return !this.authenticated;
  }

  /** Keyless, answering nothing and looking nothing up: closing it loses no message. */
  evictable(): boolean {
    return !this.authenticated && !this.busy() && !this.ended;
  }

  /** Closed to make room for a new connection (mllpAdmission.ts). */
  evict(): void {
    this.cut("evicted");
  }

  private busy(): boolean {
    return this.unacked.frames > 0 || this.pausedFor === "key";
  }

  /**
   * Runs the keyless timeout afresh while the connection has no valid key and is answering
   * nothing, else stops it. A frame arriving does not stop it (a keyless sender cannot hold its
   * connection by trickling); a frame being answered does (the database may be slow to answer it).
   */
  private keylessTimer(): void {
    clearTimeout(this.keylessClock);
    if (this.authenticated || this.busy() || this.ended) return;
    this.keylessClock = setTimeout(() => this.cut("keyless"), this.serving.limits.keylessTimeoutMs);
  }

  /** Takes nothing new, answers what was received, then ends the connection. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.idle;
    this.socket.end();
  }

  private showedKey(valid: boolean, key: string): void {
    this.authenticated = valid;
    this.frames.limit = valid ? MAX_FRAME_BYTES : this.serving.limits.unauthenticatedFrameBytes;
    this.watchKey(valid ? key : null);
  }

  /** Too much taken and not answered, or ACKs waiting for the peer to read: take no more frames. */
  private backlogged(): boolean {
    const { frames, bytes } = this.unacked;
    return (
      frames >= this.serving.limits.maxUnackedFrames || bytes >= MAX_UNACKED_BYTES || this.socket.writableNeedDrain
    );
  }

  /** Reading paused for the ACKs: goes on where it stopped once they are written and drained. */
  private readOnIfAnswered(): void {
    if (this.pausedFor !== "acks" || this.ended || this.socket.destroyed || this.backlogged()) return;
    this.pausedFor = null;
    this.readOn();
  }

  /** Takes up the events of the last bytes read, and reads from the socket again once they are all taken. */
  private readOn(): void {
    if (this.events !== null) this.readEvents();
    if (this.events === null && this.pausedFor === null && !this.ended) this.socket.resume();
  }

  private watchKey(key: string | null): void {
    if (key === this.watchedKey || this.ended) return;
    this.unwatch();
    this.watchedKey = key;
    this.unwatch = key === null ? () => {} : this.serving.watchKey(key, (end) => this.keyEnded(end));
  }

  /**
   * The key the connection was let in by stopped working: nothing more is taken, the messages
   * already received are answered (AR: their key is refused), and the connection is closed. A
   * sender with a new key connects again.
   */
  private keyEnded(end: CredentialEnd): void {
    if (this.ended || this.socket.destroyed) return;
    this.closedFor("credential_ended");
    this.serving.log.info(
      { remote: this.socket.remoteAddress, end },
      "MLLP connection closed: its client key stopped working",
    );
    this.discardInput();
    this.idle = this.idle.then(() => {
      this.socket.end();
      setTimeout(() => this.socket.destroy(), REFUSED_GRACE_MS).unref();
    });
  }

  private readEvents(): void {
    // Stopping: what was read and not yet taken is dropped, as new bytes are.
    if (this.stopping) return void (this.events = null);
    for (let next = this.events!.next(); !next.done; next = this.events!.next()) {
      const event = next.value;
      if (event.type === "started")
        this.deadline = setTimeout(() => this.frameLate(), this.serving.limits.frameDeadlineMs);
      else if (event.type === "frame") {
        clearTimeout(this.deadline);
        this.answer(event.bytes);
        if (this.backlogged()) {
          // The rest of these bytes, and the socket's, wait until ACKs are written.
          this.pausedFor = "acks";
          this.socket.pause();
          return;
        }
      } else if (this.authenticated) {
        return this.refuse(
          "frame_size",
          `The frame is over ${MAX_FRAME_BYTES / 1024 / 1024} MB; send one message a frame.`,
        );
      } else {
        this.pausedFor = "key";
        this.socket.pause();
        this.keylessTimer();
        return void this.lookUpKey();
      }
    }
    this.events = null;
  }

  private answer(bytes: Buffer): void {
    const answered = this.serving.answerFrame(bytes);
    this.unacked.frames++;
    this.unacked.bytes += bytes.length;
    this.keylessTimer();
    this.idle = this.idle.then(async () => {
      const answers = await answered;
      for (const { keyValid, key } of answers) if (keyValid !== null) this.showedKey(keyValid, key);
      this.unacked.frames--;
      this.unacked.bytes -= bytes.length;
      this.keylessTimer();
      if (this.socket.destroyed) return;
      // A group's ACKs are settled together: one write to the socket for all of them.
      this.socket.cork();
      for (const { ack } of answers) this.socket.write(framed(ack));
      process.nextTick(() => {
        this.socket.uncork();
        this.readOnIfAnswered();
      });
    });
  }

  /** A frame past the unauthenticated limit: its own MSH-8 decides whether it may go on. */
  private async lookUpKey(): Promise<void> {
    const key = mshField(er7Messages(this.frames.head(HEAD_BYTES)).messages[0] ?? "", 8);
    let valid: boolean;
    try {
      valid = await this.serving.isValidKey(key);
    } catch (error) {
      this.serving.log.error({ err: error }, "an MLLP sender's key could not be looked up");
      return this.refuse("unauthenticated_bytes", SEND_AGAIN);
    }
    if (this.ended || this.socket.destroyed) return;
    if (!valid) return this.refuse("unauthenticated_bytes", key ? UNKNOWN_KEY : MISSING_KEY);
    this.showedKey(true, key);
    this.pausedFor = null;
    this.keylessTimer();
    this.readOn();
  }

  private frameLate(): void {
    if (!this.authenticated) return this.cut("frame_deadline");
    this.refuse(
      "frame_deadline",
      `The frame did not arrive whole within ${this.serving.limits.frameDeadlineMs / 1000} s of its start; send each message without pausing.`,
    );
  }

  /** Closes the connection at once, without an answer. */
  private cut(reason: MllpCloseReason): void {
    if (!this.ended && !this.socket.destroyed) this.closedFor(reason);
    this.socket.destroy();
  }

  /** Takes nothing more; after the ACKs of the frames before it, answers the unfinished frame AR (its MSH names the message) and closes. */
  private refuse(reason: MllpCloseReason, why: string): void {
    if (this.ended || this.socket.destroyed) return;
    this.closedFor(reason);
    const ack = framed(refuseMessage(this.frames.head(HEAD_BYTES), why));
    this.discardInput();
    this.idle = this.idle.then(() => {
      this.socket.end(ack);
      setTimeout(() => this.socket.destroy(), REFUSED_GRACE_MS).unref();
    });
  }

  /** Nothing more is taken: what was read and what comes is dropped (read, so the peer is not stalled). */
  private discardInput(): void {
    this.frames.discard();
    this.events = null;
    this.pausedFor = null;
    this.socket.removeAllListeners("data");
    this.socket.resume();
  }

  private closedFor(reason: MllpCloseReason): void {
    this.ended = true;
    this.unwatch();
    clearTimeout(this.deadline);
    clearTimeout(this.keylessClock);
    this.serving.metrics.mllpConnectionClosed(reason);
    this.serving.log.debug({ remote: this.socket.remoteAddress, reason }, "MLLP connection closed for a limit");
  }
}
