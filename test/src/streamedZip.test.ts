import { execFile } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { PassThrough } from "node:stream";
import { pipeline } from "node:stream/promises";
import { promisify } from "node:util";
import { expect } from "chai";
import { StreamedZip, ZipReaderGone } from "../../src/http/streamedZip.ts";

const run = promisify(execFile);

/*
 * The zip a patient's copy is written into (contract G.1): a file of tens of megabytes goes out a
 * piece at a time, held back while nobody reads, and the archive is one `unzip` tests whole.
 */
describe("a streamed zip (src/http/streamedZip.ts)", function () {
  this.timeout(60_000);
  let scratch: string;
  before(() => (scratch = mkdtempSync(path.join(os.tmpdir(), "streamed-zip-"))));
  after(() => rmSync(scratch, { recursive: true, force: true }));

  it("waits while its reader does not read, never holding more than a piece, and writes an archive unzip tests whole", async () => {
    const out = new PassThrough();
    const zip = new StreamedZip(out, new Date("2026-03-01T08:00:00"));
    const sent = createHash("sha256");
    let written = 0;
    let mostWaiting = 0;
    const producing = (async () => {
      await zip.file("small.json", (file) => file.write('{"a":1}\n'));
      await zip.file("big.ndjson", async (file) => {
        // 24 MB of lines that compress to about half: far more than any buffer on the way.
        for (let i = 0; i < 200_000; i++) {
          const line = `${randomBytes(60).toString("hex")}\n`;
          sent.update(line);
          written += line.length;
          await file.write(line);
          mostWaiting = Math.max(mostWaiting, out.writableLength);
        }
      });
      zip.end();
    })();
    // Nobody reads for a while: the producer must stop, not fill the memory.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(written, "stopped early, waiting for its reader").to.be.below(2 * 1024 * 1024);
    const file = path.join(scratch, "big.zip");
    await Promise.all([producing, pipeline(out, createWriteStream(file))]);
    expect(mostWaiting, "bytes waiting for the reader at most").to.be.below(512 * 1024);

    expect((await run("unzip", ["-t", file])).stdout).to.include("No errors detected");
    const listed = await run("unzip", ["-Z1", file]);
    expect(listed.stdout.split("\n").filter(Boolean)).to.deep.equal(["small.json", "big.ndjson"]);
    const big = (await run("unzip", ["-p", file, "big.ndjson"], { maxBuffer: 64 * 1024 * 1024, encoding: "buffer" }))
      .stdout;
    expect(createHash("sha256").update(big).digest("hex")).to.equal(sent.digest("hex"));
  });

  it("stops with ZipReaderGone when its reader goes away part way", async () => {
    const out = new PassThrough();
    const zip = new StreamedZip(out, new Date());
    const producing = zip.file("big.ndjson", async (file) => {
      for (let i = 0; i < 1_000_000; i++) await file.write(`${randomBytes(60).toString("hex")}\n`);
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    out.destroy();
    let failure: unknown = null;
    await producing.catch((error: unknown) => (failure = error));
    expect(failure).to.be.instanceOf(ZipReaderGone);
  });
});
