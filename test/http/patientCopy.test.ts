import { execFile } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { expect } from "chai";
import { localDateTime } from "../../db/localDateTime.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import type { AccessRecordAnswer } from "../../queries/access/accessLog.ts";
import { copyPatientSchema, copyResultLineSchema } from "../../queries/patients/patientCopy.ts";
import { alertSchema } from "../../queries/alerts/alerts.ts";
import { reportHistorySchema } from "../../queries/ingestion/reportHistory.ts";
import { accessRecordSchema } from "../../queries/access/accessLog.ts";
import { ADMIN, httpClient } from "../support/http.ts";
import { examReport, ingestionTenant, labReport, ZHANG_SAN, type IngestionTenant } from "../support/ingestion.ts";
import { startTestService, until } from "../support/service.ts";

const run = promisify(execFile);
const hoursAgo = (hours: number) => localDateTime(new Date(Date.now() - hours * 3_600_000));
// Critical results raise alerts only while fresh: the potassium was taken two hours ago, the first panel a month before.
const FIRST_COLLECTED = hoursAgo(30 * 24);
const FIRST_REPORTED = hoursAgo(30 * 24 - 3);

/*
 * A patient's copy (contract G.1, PIPL art. 45): an administrator downloads one zip holding what
 * the service knows of the patient, which the `unzip` program must open and test whole; the copy
 * is itself recorded in the patient's access log, and is the administrator's alone, within wards.
 */

interface Download {
  status: number;
  headers: Headers;
  bytes: Buffer;
  requestId: string;
}

describe("a patient's copy (contract G.1)", function () {
  this.timeout(60_000);
  let service: RunningService;
  let h1: IngestionTenant;
  let scratch: string;
  const call = (method: string, pathName: string, options: { token?: string; body?: unknown } = {}) =>
    httpClient(service.url!)(method, pathName, { tenant: "h1", ...options });

  async function tokenWith(body: Record<string, unknown>): Promise<string> {
    const made = await call("POST", "/api/admin/authors", {
      token: ADMIN,
      body: { name: "Head nurse Liu", tenant: "h1", ...body },
    });
    expect(made.status, JSON.stringify(made.body)).to.equal(201);
    return made.body.token as string;
  }

  async function download(pathName: string, token: string): Promise<Download> {
    const response = await fetch(`${service.url}${pathName}`, {
      headers: { authorization: `Bearer ${token}`, "x-service-tenant": "h1" },
    });
    // The service's own id of the request, which its access record carries.
    const requestId = response.headers.get("x-request-id")!;
    return {
      status: response.status,
      headers: response.headers,
      bytes: Buffer.from(await response.arrayBuffer()),
      requestId,
    };
  }

  /** The archive's files, as the unzip program reads them, once it has tested every file's CRC. */
  async function unzipped(bytes: Buffer): Promise<Map<string, string>> {
    const file = path.join(scratch, `${randomUUID()}.zip`);
    writeFileSync(file, bytes);
    const tested = await run("unzip", ["-t", file]);
    expect(tested.stdout).to.include("No errors detected");
    const listed = await run("unzip", ["-Z1", file]);
    const files = new Map<string, string>();
    for (const name of listed.stdout.split("\n").filter(Boolean))
      files.set(name, (await run("unzip", ["-p", file, name], { maxBuffer: 64 * 1024 * 1024 })).stdout);
    return files;
  }

  async function accessLogOf(patientRef: string): Promise<AccessRecordAnswer[]> {
    const log = await call("GET", `/api/patients/${patientRef}/access-log`, { token: ADMIN });
    expect(log.status).to.equal(200);
    return log.body as AccessRecordAnswer[];
  }

  before(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), "patient-copy-"));
    service = await startTestService({ projections: allProjections });
    h1 = await ingestionTenant(service, "h1");
    const pushedLab = await h1.push("lab", [
      labReport("COPY-L1", {
        collectedAt: FIRST_COLLECTED,
        reportedAt: FIRST_REPORTED,
        items: [
          {
            itemCode: "HGB",
            itemName: "血红蛋白",
            value: 10.8,
            unit: "g/dL",
            refLow: 11.5,
            refHigh: 15,
            abnormalFlag: "L",
          },
          { itemCode: "Ca", value: 2.2, unit: "mmol/L" },
          { itemCode: "Alb", value: 30, unit: "g/L" },
        ],
      }),
      // 7.1 mmol/L of potassium, flagged HH: a critical result, so an alert.
      labReport("COPY-L2", {
        collectedAt: hoursAgo(2),
        reportedAt: hoursAgo(1),
        items: [{ itemCode: "K", itemName: "钾", value: 7.1, unit: "mmol/L", abnormalFlag: "HH" }],
      }),
    ]);
    const pushedExam = await h1.push("exam", [examReport("COPY-E1")]);
    for (const pushed of [pushedLab, pushedExam])
      expect(pushed.body.data.accepted, JSON.stringify(pushed.body)).to.be.greaterThan(0);
    await until(
      async () =>
        (
          await service.db.query(
            "select count(distinct external_id)::int as n from read.lab_results where tenant = 'h1' and patient_ref = 'P001'",
          )
        ).rows[0].n === 2,
      20_000,
    );
    await until(
      async () =>
        (
          await service.db.query(
            "select count(*)::int as n from read.exam_reports where tenant = 'h1' and patient_ref = 'P001'",
          )
        ).rows[0].n === 1,
      20_000,
    );
    await until(
      async () => ((await call("GET", "/api/alerts?state=open", { token: ADMIN })).body as unknown[]).length === 1,
      20_000,
    );
    // A look at the patient by a nurse: the access record the copy must hold.
    expect((await call("GET", "/api/patients/P001", { token: h1.authorToken })).status).to.equal(200);
    await until(
      async () =>
        (await accessLogOf("P001")).some(
          (record) => record.action === "GET /api/patients/{patientRef}" && record.who === "Nurse Chen",
        ),
      10_000,
    );
    // Another ward's patient, for the ward scope.
    expect(
      (
        await call("PUT", "/api/patients/P900", {
          token: ADMIN,
          body: { name: "王五", idCard: "110105194912310038", ward: "B" },
        })
      ).status,
    ).to.equal(200);
  });
  after(async () => {
    await service?.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it("hands an administrator a zip of the patient's identity, results, report histories, alerts and access log", async () => {
    const admin = await tokenWith({ roles: ["admin"] });
    const copy = await download("/api/patients/P001/copy", admin);
    expect(copy.status, copy.bytes.toString()).to.equal(200);
    expect(copy.headers.get("content-type")).to.equal("application/zip");
    expect(copy.headers.get("content-disposition")).to.match(
      /^attachment; filename="P001 copy \d{4}-\d{2}-\d{2}\.zip"/,
    );
    expect(copy.headers.get("cache-control")).to.equal("no-store");
    const files = await unzipped(copy.bytes);
    expect([...files.keys()]).to.deep.equal([
      "patient.json",
      "results.ndjson",
      "history.json",
      "alerts.json",
      "access-log.json",
    ]);

    const patient = copyPatientSchema.parse(JSON.parse(files.get("patient.json")!));
    expect(patient).to.deep.include({
      patientRef: "P001",
      name: ZHANG_SAN.name,
      idCard: ZHANG_SAN.idCard,
      birthDate: "1949-12-31",
      sex: "F",
      ward: "A",
      active: true,
    });
    expect(patient.registrations).to.have.length(1);
    expect(patient.registrations[0]).to.deep.include({
      event: "REGISTERED",
      by: "Nurse Chen",
      idCard: ZHANG_SAN.idCard,
    });

    const lines = files
      .get("results.ndjson")!
      .trimEnd()
      .split("\n")
      .map((line) => copyResultLineSchema.parse(JSON.parse(line)));
    const lab = lines.filter((line) => line.kind === "lab");
    expect(
      lab.map((line) => `${line.externalId}#${line.itemIndex}`),
      "oldest collected first",
    ).to.deep.equal(["COPY-L1#0", "COPY-L1#1", "COPY-L1#2", "COPY-L2#0"]);
    expect(lab[0]).to.deep.include({
      reportNo: "R-COPY-L1",
      collectedAt: FIRST_COLLECTED.replace(" ", "T"),
      reportedAt: FIRST_REPORTED.replace(" ", "T"),
      itemCode: "HGB",
      itemName: "血红蛋白",
      value: 10.8,
      unit: "g/dL",
      flag: "L",
      stdCode: "HGB",
      stdValue: 108,
      stdUnit: "g/L",
    });
    expect(lab[3]).to.deep.include({
      itemCode: "K",
      value: 7.1,
      flag: "HH",
      stdCode: "K",
      stdValue: 7.1,
      stdUnit: "mmol/L",
    });
    const derived = lines.filter((line) => line.kind === "derived");
    expect(
      derived.map((line) => line.stdCode),
      "corrected calcium from Ca and Alb of COPY-L1",
    ).to.include("CA_CORR");
    expect(derived.find((line) => line.stdCode === "CA_CORR")).to.deep.include({
      derived: true,
      day: FIRST_COLLECTED.slice(0, 10),
    });
    const exam = lines.filter((line) => line.kind === "exam");
    expect(exam).to.have.length(1);
    expect(exam[0]).to.deep.include({ externalId: "COPY-E1", examType: "ECHO", conclusion: "左室舒张功能减低" });
    expect(exam[0]!.items[0]).to.deep.include({ itemCode: "LVEF", value: 62 });

    const histories = reportHistorySchema.array().parse(JSON.parse(files.get("history.json")!));
    expect(histories.map((history) => `${history.kind}:${history.externalId}`)).to.deep.equal([
      "lab:COPY-L1",
      "lab:COPY-L2",
      "exam:COPY-E1",
    ]);
    expect(histories[1]!.entries.map((entry) => entry.event)).to.deep.equal(["RECEIVED", "ALERT_RAISED"]);
    expect(histories[1]!.entries[0]).to.deep.include({ status: "CREATED", matched: true, patientRef: "P001" });

    const alerts = alertSchema.array().parse(JSON.parse(files.get("alerts.json")!));
    expect(alerts).to.have.length(1);
    expect(alerts[0]).to.deep.include({
      kind: "CRITICAL",
      patientRef: "P001",
      code: "K",
      value: 7.1,
      externalId: "COPY-L2",
    });

    const records = accessRecordSchema.array().parse(JSON.parse(files.get("access-log.json")!));
    expect(
      records.some(
        (record) =>
          record.action === "GET /api/patients/{patientRef}" &&
          record.who === "Nurse Chen" &&
          record.outcome === "shown",
      ),
    ).to.equal(true);
    expect(
      records.every((record) => record.patientRefs.includes("P001")),
      "only records naming the patient",
    ).to.equal(true);
  });

  it("records the copy in the patient's access log, and the next copy holds that record", async () => {
    const admin = await tokenWith({ roles: ["admin"], name: "Director Zhao" });
    const first = await download("/api/patients/P001/copy", admin);
    expect(first.status).to.equal(200);
    const recorded = await until(
      async () => (await accessLogOf("P001")).find((record) => record.requestId === first.requestId),
      5000,
    );
    expect(recorded).to.deep.include({
      who: "Director Zhao",
      roles: ["admin"],
      action: "GET /api/patients/{patientRef}/copy",
      patientRefs: ["P001"],
      outcome: "shown",
    });
    const second = await download("/api/patients/P001/copy", admin);
    const records = accessRecordSchema
      .array()
      .parse(JSON.parse((await unzipped(second.bytes)).get("access-log.json")!));
    expect(records.map((record) => record.requestId)).to.include(first.requestId);
  });

  it("refuses a clinician and an author with 403 naming the role admin", async () => {
    for (const token of [await tokenWith({ roles: ["clinician"] }), h1.authorToken]) {
      const refused = await call("GET", "/api/patients/P001/copy", { token });
      expect(refused.status).to.equal(403);
      expect(refused.body.error).to.include("needs the role admin");
    }
    expect((await call("GET", "/api/patients/P001/copy")).status, "no credential").to.equal(401);
  });

  it(
    "answers 404 with a sentence for an unknown patient, and for another ward's patient to an administrator of " +
      "some wards, and records the attempt",
    async () => {
      const unknown = await download("/api/patients/P404/copy", ADMIN);
      expect(unknown.status).to.equal(404);
      expect(JSON.parse(unknown.bytes.toString())).to.deep.include({
        error: "No patient P404 in this tenant; GET /api/patients lists them.",
        code: "patient-not-found",
      });

      const wardA = await tokenWith({ roles: ["admin"], wards: ["A"] });
      expect(
        (await download("/api/patients/P001/copy", wardA)).status,
        "a patient of the administrator's ward",
      ).to.equal(200);
      const other = await download("/api/patients/P900/copy", wardA);
      expect(other.status).to.equal(404);
      expect(JSON.parse(other.bytes.toString()).error).to.equal(
        "No patient P900 in this tenant; GET /api/patients lists them.",
      );
      const attempt = await until(
        async () => (await accessLogOf("P900")).find((record) => record.requestId === other.requestId),
        5000,
      );
      expect(attempt).to.deep.include({ action: "GET /api/patients/{patientRef}/copy", outcome: "not-found" });

      expect((await call("GET", "/api/patients/-P001/copy", { token: ADMIN })).status, "not a patientRef").to.equal(
        400,
      );
      const head = await fetch(`${service.url}/api/patients/P001/copy`, {
        method: "HEAD",
        headers: { authorization: `Bearer ${ADMIN}`, "x-service-tenant": "h1" },
      });
      expect(head.status, "HEAD: the headers only").to.equal(200);
      expect(head.headers.get("content-type")).to.equal("application/zip");
    },
  );
});
