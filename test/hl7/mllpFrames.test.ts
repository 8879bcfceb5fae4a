import { expect } from "chai";
import { MllpFrames, type FrameEvent } from "../../src/ingestion/hl7/mllpFrames.ts";

/* MLLP framing of a byte stream, however the reads cut it. */

const bytes = (text: string) => Buffer.from(text, "utf8");
const framed = (text: string) => `\x0b${text}\x1c\r`;

/** An event as a test reads it: a frame as its text. */
type Shown = { type: "started" } | { type: "over" } | { type: "frame"; text: string };
const shown = (event: FrameEvent): Shown =>
  event.type === "frame" ? { type: "frame", text: event.bytes.toString("utf8") } : event;

/** Every event of the reads, reading on past `over` as a reader that lets the frame go on would. */
function eventsOf(frames: MllpFrames, reads: Buffer[]): Shown[] {
  const events: Shown[] = [];
  for (const data of reads) {
    for (const event of frames.read(data)) {
      events.push(shown(event));
      if (event.type === "over") frames.limit = Infinity;
    }
  }
  return events;
}

describe("MLLP frames", () => {
  const stream = bytes(`\r\n${framed("MSH|^~\\&|A|血透")}junk${framed("MSH|^~\\&|B")}`);
  const expected: Shown[] = [
    { type: "started" },
    { type: "frame", text: "MSH|^~\\&|A|血透" },
    { type: "started" },
    { type: "frame", text: "MSH|^~\\&|B" },
  ];

  it("reads the same frames whatever byte the reads are cut at, the end block's two bytes included", () => {
    for (let cut = 0; cut <= stream.length; cut++) {
      expect(
        eventsOf(new MllpFrames(1024), [stream.subarray(0, cut), stream.subarray(cut)]),
        `cut at ${cut}`,
      ).to.deep.equal(expected);
    }
  });

  it("reads frames trickled a byte a read", () => {
    expect(
      eventsOf(
        new MllpFrames(1024),
        [...stream].map((byte) => Buffer.from([byte])),
      ),
    ).to.deep.equal(expected);
  });

  it("tells when the unfinished frame passes the limit, and goes on where it stopped once the limit is raised", () => {
    const frames = new MllpFrames(8);
    const read = frames.read(bytes(`${framed("0123456789abc")}${framed("x")}`));
    expect(read.next().value).to.deep.equal({ type: "started" });
    expect(read.next().value).to.deep.equal({ type: "over" });
    expect(read.next().value, "still over").to.deep.equal({ type: "over" });
    expect(frames.head(4)).to.equal("0123");
    frames.limit = 100;
    expect([...read].map(shown)).to.deep.equal([
      { type: "frame", text: "0123456789abc" },
      { type: "started" },
      { type: "frame", text: "x" },
    ]);
  });
});
