import net from "node:net";
import { ingestionTenant, labReport, ZHANG_SAN } from "../test/support/ingestion.ts";
import pg from "pg";
import { createTestDatabase, testServerUrl } from "../test/support/database.ts";
import { freePort } from "../test/support/privatePostgres.ts";
import { spawnService } from "../test/support/serviceProcess.ts";
import { buildServer } from "../src/buildServer.ts";
import { median, result, type BenchResult } from "./results.ts";
import { timedSenders } from "./timedSenders.ts";

/*
 * #19: ORU^R01 messages of 20 OBX sent over 4 MLLP connections against the same reports pushed as
 * JSON by 4 senders, in the same run, each on a fresh service and database, twice: with each
 * connection keeping up to WINDOW messages unacknowledged against JSON pushes of WINDOW reports
 * (the same reports in flight per sender), and one message at a time (original mode) against
 * JSON one report a push (one report, one answer). #35 asks the windowed ratio >= 0.9.
 */

export const CONNECTIONS = 4;
const MESSAGES_PER_CONNECTION = Number(process.env.BENCH_HL7_MESSAGES ?? 1500);
/** Messages a connection keeps unacknowledged, and reports a JSON push of the baseline carries. */
export const WINDOW = Number(process.env.BENCH_HL7_WINDOW ?? 100);
const RESULTS = 20;
const START = Buffer.from([0x0b]);
const END = Buffer.from([0x1c, 0x0d]);

const codes = ["HGB", "K", "NA", "CA", "P", "ALB", "CREA", "UREA", "GLU", "CRP"];

/** The i-th report of a connection as an ORU^R01 message carrying the key in MSH-8. */
function message(key: string, connection: number, i: number): string {
  const id = `HL7B-${connection}-${i}`;
  const obx = Array.from(
    { length: RESULTS },
    (_, j) =>
      `OBX|${j + 1}|NM|${codes[j % codes.length]}${j >= codes.length ? j : ""}^项目${j}||${((j + i) % 97) + 1}|g/L|1-100|N|||F`,
  );
  return [
    `MSH|^~\\&|LIS|医院|DIALYSIS-HUB||20260301101500|${key}|ORU^R01|${id}|P|2.5.1|||||CHN|UNICODE UTF-8`,
    `PID|1||${ZHANG_SAN.idCard}^^^^NNCHN~H-1^^^^PI||张^三`,
    `OBR|1||${id}|DLYM^透析月度检查|||20260301073000|||||||||||||||20260301100000|||F`,
    ...obx,
  ].join("\r");
}

/** The same report as a JSON push sends it. */
function jsonReport(connection: number, i: number) {
  const id = `JSONB-${connection}-${i}`;
  return labReport(id, {
    items: Array.from({ length: RESULTS }, (_, j) => ({
      itemCode: `${codes[j % codes.length]}${j >= codes.length ? j : ""}`,
      itemName: `项目${j}`,
      value: ((j + i) % 97) + 1,
      unit: "g/L",
      refLow: 1,
      refHigh: 100,
      abnormalFlag: "N",
    })),
  });
}

/**
 * Sends `count` messages (numbered from `first`) on one connection keeping at most `window` of them unacknowledged (1: each
 * after the ACK of the one before, as a laboratory system in original mode does); counts the AAs.
 */
export async function sendOverMllp(
  port: number,
  key: string,
  connection: number,
  count: number,
  window: number,
  first = 0,
): Promise<number> {
  const socket = net.connect(port, "127.0.0.1");
  await new Promise((resolve, reject) => socket.once("connect", resolve).once("error", reject));
  let buffered = "";
  let accepted = 0;
  let answered = 0;
  let sent = 0;
  return new Promise<number>((resolve, reject) => {
    const sendMore = () => {
      while (sent < count && sent - answered < window)
        socket.write(Buffer.concat([START, Buffer.from(message(key, connection, first + sent++), "utf8"), END]));
    };
    socket.on("error", reject);
    socket.on("data", (data) => {
      buffered += data.toString("utf8");
      for (let end = buffered.indexOf("\x1c\r"); end >= 0; end = buffered.indexOf("\x1c\r")) {
        if (buffered.slice(1, end).includes("\rMSA|AA|")) accepted++;
        buffered = buffered.slice(end + 2);
        answered++;
      }
      if (answered === count) {
        socket.end();
        resolve(accepted);
      } else sendMore();
    });
    sendMore();
  });
}

/** Messages (or JSON reports) each connection sends before the clock starts: the service's code and caches warm, its first generation's tables written. */
const WARMUP = 100;

async function measure(
  kind: "hl7" | "json",
  window: number,
  messages: number,
): Promise<{ perSecond: number; accepted: number }> {
  const mllpPort = await freePort();
  const service = await spawnService({
    databaseUrl: await createTestDatabase(false),
    env: { HL7_MLLP_PORT: String(mllpPort), OPEN_API_RATE_PER_SECOND: "100000", OPEN_API_BURST: "100000" },
  });
  try {
    const tenant = await ingestionTenant(service, "lab");
    const senders = (first: number, count: number) =>
      Array.from({ length: CONNECTIONS }, (_, c) => async () => {
        if (kind === "hl7") return sendOverMllp(mllpPort, tenant.client.key, c, count, window, first);
        let accepted = 0;
        for (let i = 0; i < count; i += window) {
          const reports = Array.from({ length: Math.min(window, count - i) }, (_, k) => jsonReport(c, first + i + k));
          const answer = await tenant.push("lab", reports);
          if (answer.status === 200) accepted += answer.body.data.accepted;
        }
        return accepted;
      });
    await timedSenders(senders(0, WARMUP));
    // Each run starts with the server's dirty pages written: a checkpoint that falls in one run only swings it.
    await checkpoint();
    return await timedSenders(senders(WARMUP, messages));
  } finally {
    await service.stop();
  }
}

async function checkpoint(): Promise<void> {
  const admin = new pg.Client({ connectionString: await testServerUrl() });
  await admin.connect();
  try {
    await admin.query("checkpoint");
  } finally {
    await admin.end();
  }
}

/**
 * Each mode is measured ROUNDS times, JSON and HL7 taking turns to go first, each on a fresh service
 * warmed up first: one short run of each, cold, swung the ratio by a fifth between runs (0.68-0.95),
 * and a warm run of each still by a tenth.
 */
const ROUNDS = Number(process.env.BENCH_HL7_ROUNDS ?? 3);
const ONE_IN_FLIGHT_MESSAGES = Number(process.env.BENCH_HL7_ONE_IN_FLIGHT_MESSAGES ?? 250);

export async function hl7Benchmarks(): Promise<BenchResult[]> {
  await buildServer();
  const figures: Array<{ window: number; messages: number; hl7: number[]; json: number[] }> = [];
  for (const [window, messages] of [
    [WINDOW, MESSAGES_PER_CONNECTION],
    [1, ONE_IN_FLIGHT_MESSAGES],
  ] as const) {
    const figure = { window, messages, hl7: [] as number[], json: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of round % 2 === 0 ? (["json", "hl7"] as const) : (["hl7", "json"] as const)) {
        const measured = await measure(kind, window, messages);
        if (measured.accepted !== CONNECTIONS * messages)
          throw new Error(`not every ${kind} report was accepted: ${measured.accepted} of ${CONNECTIONS * messages}`);
        figure[kind].push(measured.perSecond);
      }
    }
    console.error(
      `  hl7: window ${window}: HL7 ${figure.hl7.map(Math.round).join(", ")} messages/s; JSON ${figure.json.map(Math.round).join(", ")} reports/s`,
    );
    figures.push(figure);
  }
  const [windowed, oneByOne] = figures as [(typeof figures)[0], (typeof figures)[0]];
  const runs = (f: (typeof figures)[0]) =>
    `${ROUNDS} rounds, each kind on a fresh service after a warm-up of ${WARMUP} a connection, taking turns to ` +
    `go first; HL7 runs ${f.hl7.map(Math.round).join(", ")}, JSON runs ` +
    `${f.json.map(Math.round).join(", ")}: the medians`;
  const windowedNote =
    `ORU^R01 of ${RESULTS} OBX over ${CONNECTIONS} MLLP connections, each keeping up to ${WINDOW} messages ` +
    `unacknowledged, ${CONNECTIONS * windowed.messages} messages, until the last ACK; baseline: the same reports ` +
    `pushed as JSON by ${CONNECTIONS} senders, ${WINDOW} a push; ${runs(windowed)}; target ratio >= 0.9 (#35)`;
  const oneByOneNote =
    `the same, ${CONNECTIONS * oneByOne.messages} messages, each connection sending its next message after the ` +
    `ACK of the one before (original mode); baseline: JSON one report a push, ${CONNECTIONS} ` +
    `senders; ${runs(oneByOne)}`;
  return [
    result("hl7.mllp_messages_per_s", median(windowed.hl7), "messages/s", median(windowed.json), windowedNote),
    result("hl7.mllp_one_in_flight_per_s", median(oneByOne.hl7), "messages/s", median(oneByOne.json), oneByOneNote),
  ];
}
