/*
 * MLLP framing of one connection's bytes (contract D.5): 0x0B starts a frame, 0x1C 0x0D ends it,
 * the two end bytes possibly in different reads; bytes between frames carry nothing and are
 * dropped. The unfinished frame is kept in one buffer that doubles as it grows (up to the limit),
 * not as the pieces it came in: a frame trickled a byte a read holds its bytes, not a Buffer object
 * for each byte.
 */

/** The largest frame the listener takes, from any connection. */
export const MAX_FRAME_BYTES = 4 * 1024 * 1024;

const START = 0x0b;
const END = Buffer.from([0x1c, 0x0d]);
const FIRST_CAPACITY = 1024;
const EMPTY = Buffer.alloc(0);

/** What the bytes read brought: a frame begun, the unfinished frame over the limit, a frame whole. */
export type FrameEvent = { type: "started" } | { type: "over" } | { type: "frame"; bytes: Buffer };

export class MllpFrames {
  private buffer = EMPTY;
  private length = 0;
  private inFrame = false;

  /** `limit`: the bytes a frame may hold; the reader may change it, e.g. when `over` is read. */
  constructor(public limit: number) {}

  /** Up to the first `bytes` of the frame received so far, as text (to read its MSH segment, or answer it). */
  head(bytes = this.length): string {
    return this.buffer.toString("utf8", 0, Math.min(bytes, this.length));
  }

  /**
   * The events of the bytes read, in order. `over` comes while the frame holds more than `limit`
   * bytes, again and again until the limit is raised: whoever stops reading there (to close the
   * connection, or to pause while it decides) may call `next()` later and go on where it stopped.
   */
  *read(data: Buffer): Generator<FrameEvent, void, undefined> {
    let at = 0;
    while (at < data.length) {
      if (!this.inFrame) {
        const start = data.indexOf(START, at);
        if (start < 0) return;
        this.inFrame = true;
        at = start + 1;
        yield { type: "started" };
        continue;
      }
      // Whole when the end block's first byte ended the previous read and its second begins this one.
      let whole = this.length > 0 && this.buffer[this.length - 1] === END[0] && data[at] === END[1];
      if (whole) {
        this.length--;
        at++;
      } else {
        const end = data.indexOf(END, at);
        this.append(data.subarray(at, end < 0 ? data.length : end));
        at = end < 0 ? data.length : end + END.length;
        whole = end >= 0;
      }
      while (this.length > this.limit) yield { type: "over" };
      if (!whole) return;
      // The frame's own bytes: discard() lets the buffer go, nothing writes to it again.
      const bytes = this.buffer.subarray(0, this.length);
      this.discard();
      yield { type: "frame", bytes };
    }
  }

  /** Forgets the unfinished frame (and lets its buffer go). */
  discard(): void {
    this.buffer = EMPTY;
    this.length = 0;
    this.inFrame = false;
  }

  private append(piece: Buffer): void {
    const needed = this.length + piece.length;
    if (needed > this.buffer.length) {
      // Doubling, but not past the limit: a frame holds at most its limit and the read that passed it.
      const grown = Buffer.allocUnsafe(
        Math.max(needed, Math.min(Math.max(this.buffer.length * 2, FIRST_CAPACITY), this.limit)),
      );
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    piece.copy(this.buffer, this.length);
    this.length = needed;
  }
}
