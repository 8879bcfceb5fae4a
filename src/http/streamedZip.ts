import type { Writable } from "node:stream";
import { Zip, ZipDeflate } from "fflate";

/** What a file of a streamed zip is written through: text, in the order it is to be read. */
export interface ZipFileWriter {
  write(text: string): Promise<void>;
}

/** Text gathered before it is compressed: a deflate block per line would compress poorly and cost a call each. */
const PIECE_CHARS = 64 * 1024;

/** The archive's reader went away (Koa destroys the body when the response ends early): the writing stops. */
export class ZipReaderGone extends Error {
  constructor() {
    super("the reader of the archive went away");
  }
}

/**
 * A zip archive written to `out` one file after another as each is produced, never held whole:
 * a file's text is compressed a piece at a time (fflate), and the writing waits whenever `out`
 * is full, so a slow reader holds back the producer instead of filling the memory.
 */
export class StreamedZip {
  private readonly zip: Zip;
  private failure: Error | null = null;

  constructor(
    private readonly out: Writable,
    /** Every file's modification time: when the archive was made. */
    private readonly madeAt: Date,
  ) {
    this.zip = new Zip((error, chunk, final) => {
      if (error) this.failure = error;
      else if (!out.destroyed) {
        out.write(chunk);
        if (final) out.end();
      }
    });
  }

  /** Adds the file `name`, whose text `produce` writes; resolves once it is in the archive. */
  async file(name: string, produce: (writer: ZipFileWriter) => Promise<void>): Promise<void> {
    const entry = new ZipDeflate(name, { level: 6 });
    entry.mtime = this.madeAt;
    this.zip.add(entry);
    let pending: string[] = [];
    let size = 0;
    const push = async (final: boolean) => {
      entry.push(Buffer.from(pending.join(""), "utf8"), final);
      pending = [];
      size = 0;
      if (this.failure) throw this.failure;
      await this.drained();
    };
    await produce({
      write: async (text) => {
        pending.push(text);
        size += text.length;
        if (size >= PIECE_CHARS) await push(false);
      },
    });
    await push(true);
  }

  /** Writes the central directory and ends `out`. */
  end(): void {
    this.zip.end();
    if (this.failure) throw this.failure;
  }

  /** Resolves when `out` takes more; rejects when its reader has gone. */
  private drained(): Promise<void> {
    const out = this.out;
    if (out.destroyed) return Promise.reject(new ZipReaderGone());
    if (!out.writableNeedDrain) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const onDrain = () => {
        out.off("close", onClose);
        resolve();
      };
      const onClose = () => {
        out.off("drain", onDrain);
        reject(new ZipReaderGone());
      };
      out.once("drain", onDrain);
      out.once("close", onClose);
    });
  }
}
