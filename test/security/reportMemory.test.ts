import { expect } from "chai";
import { createTestDatabase } from "../support/database.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { peakResidentMbDuring, residentMb } from "../support/processMemory.ts";
import { tableReportSpec } from "../support/reports.ts";
import { until } from "../support/service.ts";
import { useServiceProcesses } from "../support/serviceProcess.ts";
import { unzip } from "../support/zipText.ts";

/*
 * Issue #52, finding 6: eight concurrent report answers of 32 MB (REPORT_RESULT_MAX_BYTES) took
 * the service to 1,481 MB and it stayed near 830 MB afterwards; one xlsx export of such values
 * took it to 653 MB. The service here is the production build in a process of its own, as
 * `npm start` runs it (MALLOC_ARENA_MAX=2), and its resident memory is read from /proc.
 */
const MB = 1024 * 1024;
const CALLS = 8;
/** Values of half a megabyte: 1,200 rows would be 600 MB; a data answer stops at 32 MB (truncated). */
const HUGE = "select g, repeat(md5(g::text), 16384) as v from generate_series(1, 1200) g";
/** 400 such rows, 200 MB, for the xlsx export (whose cells keep the first 32,767 characters). */
const HUGE_EXPORT = "select g, repeat(md5(g::text), 16384) as v from generate_series(1, 400) g";

describe("memory under large report values (issue #52, finding 6)", function () {
  this.timeout(240_000);
  const deployment = useServiceProcesses(() => createTestDatabase(false));
  let url: string;
  let pid: number;

  before(async () => {
    const service = await deployment.spawn({ env: { LOG_LEVEL: "warn" } });
    url = service.url!;
    pid = service.pid;
    const call = httpClient(url);
    const saved = await call("PUT", "/api/reports/huge/draft", {
      token: ADMIN,
      tenant: "h1",
      body: { spec: tableReportSpec("huge", { values: HUGE }) },
    });
    expect(saved.status, JSON.stringify(saved.body)).to.equal(200);
    const exported = await call("PUT", "/api/reports/huge-export/draft", {
      token: ADMIN,
      tenant: "h1",
      body: { spec: tableReportSpec("huge-export", { values: HUGE_EXPORT }) },
    });
    expect(exported.status, JSON.stringify(exported.body)).to.equal(200);
  });

  /** The whole answer of a call, as bytes; the client keeps nothing else. */
  async function answerOf(path: string): Promise<{ status: number; bytes: Buffer }> {
    const response = await fetch(`${url}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-service-tenant": "h1" },
      body: JSON.stringify({ version: "draft" }),
    });
    return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
  }

  /** The process's resident memory once it has settled: the lowest of a few readings. */
  async function settledMb(): Promise<number> {
    let lowest = Infinity;
    for (let i = 0; i < 5; i++) {
      lowest = Math.min(lowest, residentMb(pid));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return lowest;
  }

  it("answers eight 32 MB data calls at once within a bound of their values, and gives the memory back within seconds", async () => {
    // Warm: the first call of a process loads and compiles what every later one uses.
    expect((await answerOf("/api/reports/huge/data")).status).to.equal(200);
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const idleMb = await settledMb();

    const { value: answers, peakMb } = await peakResidentMbDuring(pid, () =>
      Promise.all(Array.from({ length: CALLS }, () => answerOf("/api/reports/huge/data"))),
    );
    for (const answer of answers) {
      expect(answer.status).to.equal(200);
      expect(answer.bytes.length, "a 32 MB answer").to.be.within(30 * MB, 34 * MB);
      expect(answer.bytes.subarray(-200).toString("utf8")).to.match(/"truncated":true,"elapsedMs":[\d.]+\}\}\}$/);
    }
    answers.length = 0;
    const values = (CALLS * 32 * MB) / MB;
    console.log(`      idle ${idleMb.toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB during ${CALLS} answers of 32 MB`);
    // Each answer's rows are held while it is written, and nothing else of its size: its text goes out in pieces.
    expect(peakMb - idleMb, `the peak above idle, against ${values} MB of values in flight`).to.be.below(values * 1.5);

    const ended = Date.now();
    // Collected once the loop is quiet (IDLE_MEMORY_RELEASE_MB, 64): without it V8 kept 130–200 MB of garbage for minutes.
    await until(async () => residentMb(pid) < idleMb + 48, 15_000, 250).catch(() => null);
    const givenBackMb = residentMb(pid);
    console.log(`      ${givenBackMb.toFixed(0)} MB ${((Date.now() - ended) / 1000).toFixed(1)} s after the answers`);
    expect(givenBackMb, "the memory given back within 15 s of the load").to.be.below(idleMb + 48);
  });

  it("exports values of half a megabyte to xlsx without holding a batch of hundreds of them", async () => {
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const idleMb = await settledMb();
    const { value: answer, peakMb } = await peakResidentMbDuring(pid, () =>
      answerOf("/api/reports/huge-export/export/xlsx"),
    );
    expect(answer.status).to.equal(200);
    const sheet = unzip(answer.bytes).get("xl/worksheets/sheet1.xml")!.toString("utf8");
    expect(sheet.match(/<row /g) ?? [], "the header and 400 rows").to.have.length(401);
    console.log(
      `      idle ${idleMb.toFixed(0)} MB, peak ${peakMb.toFixed(0)} MB during an xlsx export of 400 values of 512 kB`,
    );
    expect(peakMb - idleMb, "the peak above idle: a few batches of rows, sized by their bytes").to.be.below(100);
  });
});
