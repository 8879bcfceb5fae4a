import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { Logger } from "pino";
import { kernelQueueKey, readKernelSendQueues } from "./kernelSendQueues.ts";

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The sentence logged for each response cut (fixed, so that a log search or an alert can match it). */
export const STALLED_RESPONSE_SENTENCE =
  "Response cut: its reader took no bytes for the stall deadline (RESPONSE_STALL_MS).";

/** What was last seen of one response's connection. */
interface Progress {
  /** Bytes whose writes the socket has completed (handed to the kernel whole). */
  completed: number;
  /** Bytes libuv still holds of the write under way (it shrinks as the kernel takes pieces of a large write). */
  queued: number;
  /** What the kernel held unacknowledged when it was last read (kernelSendQueues.ts); null when not known. */
  kernel: number | null;
  /** When any of them moved, or nothing was waiting to be written. */
  movedAt: number;
  /** For the log line: the method and the path without its query (which is the caller's, not ours to log). */
  request: string;
}

/**
 * Cuts a response whose reader has stopped taking it (issue #52, finding 4). Node's HTTP server
 * has no write timeout: a client that asks for an export and never reads keeps the response open
 * for as long as it likes, and with it whatever the answer holds while it is written (a live xlsx
 * export's turn of its tenant's report queries, its report connection and transaction; a data
 * answer's rows). Once the kernel's buffers are full, bytes wait in the process; when none of them
 * has moved for `stallMs`, the connection is reset (a plain close would leave the kernel holding
 * the unread bytes, and their FIN, for minutes), and the response's body stream is destroyed with
 * it (Koa), which is how an export learns that its reader went away and gives back its turn and
 * its connection at once.
 *
 * Only a response with bytes waiting can stall: a long query before the first byte, an idle event
 * stream or a keep-alive connection between requests are never cut here (REQUEST_TIMEOUT_MS
 * covers requests that arrive too slowly). A slow reader that takes a little now and then is not
 * cut either: besides what the process sees move, the kernel's count of the bytes it holds for the
 * connection is read where there is one (Linux), since the process hears of progress only when a
 * third of the kernel's send buffer has drained. One timer looks at every open response, a few
 * times per deadline.
 */
export class StalledResponses {
  private readonly open = new Map<ServerResponse, Progress>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly stallMs: number,
    private readonly log: Logger,
    /** Told of each response cut (the service's metrics). */
    private readonly onCut: () => void = () => {},
  ) {}

  /** The server's request handler, each response watched until it is over. */
  track(handler: Handler): Handler {
    return (req, res) => {
      this.watch(req, res);
      handler(req, res);
    };
  }

  private watch(req: IncomingMessage, res: ServerResponse): void {
    // Let go of at the next look once it is over, rather than on its "close": an export's response
    // already has as many listeners as Node allows without a warning.
    this.open.set(res, {
      completed: -1,
      queued: 0,
      kernel: null,
      movedAt: Date.now(),
      request: `${req.method ?? ""} ${(req.url ?? "").split("?")[0]}`,
    });
    if (!this.timer) {
      this.timer = setInterval(() => this.look(), Math.max(25, Math.min(1000, Math.floor(this.stallMs / 4))));
      this.timer.unref();
    }
  }

  private look(): void {
    const now = Date.now();
    // Read once a look, and only when a response shows no progress of its own.
    let kernel: Map<string, number> | null | undefined;
    const kernelQueue = (socket: Socket): number | null => {
      kernel ??= readKernelSendQueues();
      const key = kernelQueueKey(socket);
      return key === null ? null : (kernel?.get(key) ?? null);
    };
    for (const [res, progress] of this.open) {
      const socket = res.socket;
      if (res.writableFinished || res.destroyed || socket?.destroyed) {
        this.open.delete(res);
        continue;
      }
      // Not given its connection yet (an answer queued behind another on the same connection).
      if (!socket) continue;
      const waiting = socket.writableLength;
      if (waiting === 0) {
        progress.movedAt = now;
        progress.completed = -1;
        continue;
      }
      const completed = socket.bytesWritten - waiting;
      // libuv's count of the bytes of its queued writes not yet taken by the kernel (Node has no public name for it).
      const queued = (socket as unknown as { _handle?: { writeQueueSize?: number } })._handle?.writeQueueSize ?? 0;
      let moved = completed > progress.completed || queued < progress.queued;
      if (!moved) {
        // The process's view moves only when the kernel wants more; the kernel's own count moves as the peer takes bytes.
        const held = kernelQueue(socket);
        moved = held !== null && held !== progress.kernel;
        progress.kernel = held;
      }
      if (moved) progress.movedAt = now;
      progress.completed = completed;
      progress.queued = queued;
      if (now - progress.movedAt < this.stallMs) continue;
      this.open.delete(res);
      this.log.warn(
        { request: progress.request, waitingBytes: waiting, stalledMs: now - progress.movedAt },
        STALLED_RESPONSE_SENTENCE,
      );
      this.onCut();
      socket.resetAndDestroy();
      res.destroy();
    }
    if (this.open.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }
}
