/**
 * Loads the demo tenant (contract C.7) through the service's own HTTP interfaces, exactly as an
 * operator, a laboratory system and a report author would: admin → a client key and an author
 * token; the author registers the patients; the laboratory pushes fourteen months of lab reports
 * through the open API; the author saves and publishes the two demo reports.
 *
 * Nothing here touches the database directly, so the demo exercises the real paths (validation,
 * patient matching, item mapping, unit conversion, projections, report SQL).
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { eachLimited } from "../eachLimited.ts";
import { INTERNAL_REQUEST_HEADER, internalRequestMark } from "../http/internalRequests.ts";
import { DEMO_TENANT, generateDemoData, type DemoLabReport } from "./demoData.ts";
import { demoReports } from "./demoReports.ts";

export interface DemoCredentials {
  tenant: string;
  /** The demo laboratory's open-API client and key (`Authorization: Bearer <clientKey>` on /open/v1). */
  clientId: string;
  clientKey: string;
  /** The demo author's token (reports and patients through /api, with `X-Service-Tenant: demo`). */
  authorToken: string;
  /** Report ids of the published demo reports. */
  reports: string[];
  createdAt: string;
}

export interface DemoLoaded extends DemoCredentials {
  patients: number;
  labReports: number;
  unmatchedReports: number;
  /** Critical values of the last hours, waiting on the staff pages' Critical results. */
  criticalResults: number;
  /** Of `unmatchedReports`, those of registered patients, to try a claim on (issue #54). */
  claimableReports: number;
  /** Reports whose items no dictionary entry matched, to try the Item mappings page on (issue #54). */
  unmappedReports: number;
  elapsedMs: number;
}

export interface LoadDemoOptions {
  /** Reference date of the demo months (default: now). */
  now?: Date;
  /** Aborts the load (e.g. on shutdown). */
  signal?: AbortSignal;
  /** Progress lines for a person watching the console. */
  onProgress?: (message: string) => void;
  /** How long to wait for the read models to apply the pushed reports (default 60 s). */
  catchUpTimeoutMs?: number;
}

const PUSH_BATCH = 100;
const PUSH_CONCURRENCY = 2;
const PATIENT_CONCURRENCY = 4;

interface Answer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- the demo reads its own answers, each once, by field
  headers: Headers;
}

class DemoHttp {
  constructor(
    private readonly baseUrl: string,
    private readonly signal: AbortSignal | undefined,
  ) {}

  async call(
    method: string,
    urlPath: string,
    options: { token?: string; tenant?: string; body?: unknown } = {},
  ): Promise<Answer> {
    for (let attempt = 0; ; attempt++) {
      const headers: Record<string, string> = {
        accept: "application/json",
        [INTERNAL_REQUEST_HEADER]: internalRequestMark,
      };
      if (options.body !== undefined) headers["content-type"] = "application/json";
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      if (options.tenant) headers["x-service-tenant"] = options.tenant;
      const response = await fetch(`${this.baseUrl}${urlPath}`, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        signal: this.signal,
      });
      const text = await response.text();
      let body: unknown = text;
      if ((response.headers.get("content-type") ?? "").includes("json") && text) body = JSON.parse(text);
      // Rate limited (open API): wait as told and send again.
      if (response.status === 429 && attempt < 10) {
        const seconds = Number(response.headers.get("retry-after") ?? "1");
        await sleep(Math.max(1, Number.isFinite(seconds) ? seconds : 1) * 1000, this.signal);
        continue;
      }
      return { status: response.status, body, headers: response.headers };
    }
  }

  async expect(
    status: number,
    what: string,
    method: string,
    urlPath: string,
    options: { token?: string; tenant?: string; body?: unknown } = {},
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- as above
  ): Promise<any> {
    const answer = await this.call(method, urlPath, options);
    if (answer.status !== status)
      throw new Error(`${what}: ${method} ${urlPath} answered ${answer.status} ${describe(answer.body)}`);
    return answer.body;
  }
}

function describe(body: unknown): string {
  if (body && typeof body === "object") {
    const b = body as { error?: unknown; msg?: unknown };
    if (typeof b.error === "string") return b.error;
    if (typeof b.msg === "string") return b.msg;
  }
  return JSON.stringify(body).slice(0, 300);
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** True when the demo tenant already has reports (a previous start loaded it). */
export async function demoLoaded(baseUrl: string, signal?: AbortSignal): Promise<boolean> {
  const http = new DemoHttp(baseUrl, signal);
  const reports = await http.expect(200, "listing the demo tenant's reports", "GET", "/api/reports", {
    tenant: DEMO_TENANT,
  });
  return Array.isArray(reports) && reports.length > 0;
}

/**
 * Loads the demo tenant through the service at `baseUrl`. Returns null, doing nothing, when the
 * demo tenant already has reports. Throws with the first problem (a call answered otherwise than
 * expected, a pushed report rejected).
 */
export async function loadDemo(
  baseUrl: string,
  adminToken: string,
  options: LoadDemoOptions = {},
): Promise<DemoLoaded | null> {
  const started = Date.now();
  const { signal, onProgress = () => {} } = options;
  const base = baseUrl.replace(/\/+$/, "");
  const http = new DemoHttp(base, signal);
  if (await demoLoaded(base, signal)) return null;

  const data = generateDemoData(options.now ?? new Date());
  const tenant = data.tenant;
  // Right after a start the read models may still be built from the event store; the service's
  // commands wait (briefly) for them, so let them go live first.
  await catchUp(http, adminToken, options.catchUpTimeoutMs ?? 60_000, signal);

  const client = await http.expect(201, "creating the demo laboratory's key", "POST", "/api/admin/clients", {
    token: adminToken,
    body: { name: "Demo central lab LIS", tenant },
  });
  const author = await http.expect(201, "creating the demo author", "POST", "/api/admin/authors", {
    token: adminToken,
    body: { name: "Demo author", tenant },
  });
  const authorToken: string = author.token;

  onProgress(`registering ${data.patients.length} patients`);
  await eachLimited(data.patients, PATIENT_CONCURRENCY, async (patient) => {
    const { patientRef, ...body } = patient;
    await http.expect(
      200,
      `registering demo patient ${patientRef}`,
      "PUT",
      `/api/patients/${encodeURIComponent(patientRef)}`,
      {
        token: authorToken,
        tenant,
        body,
      },
    );
  });

  onProgress(`pushing ${data.labReports.length} lab reports (${data.months.length} months)`);
  const batches: DemoLabReport[][] = [];
  for (let i = 0; i < data.labReports.length; i += PUSH_BATCH) batches.push(data.labReports.slice(i, i + PUSH_BATCH));
  // Critical values of the last hours come last, as a laboratory would send them today: they raise alerts.
  batches.push(data.criticalReports);
  // And what a newcomer tries the unmatched queue and the item mappings on (issue #54).
  batches.push([...data.claimableReports, ...data.unmappedReports]);
  await eachLimited(batches, PUSH_CONCURRENCY, async (reports) => {
    const answer = await http.call("POST", "/open/v1/lab/reports", { token: client.key, tenant, body: { reports } });
    const envelope = answer.body as {
      code?: number;
      msg?: string;
      data?: {
        results?: Array<{
          status: string;
          externalId: string | null;
          errors?: Array<{ field: string; message: string }>;
        }>;
      };
    };
    if (answer.status !== 200 || envelope?.code !== 200) {
      throw new Error(
        `pushing demo lab reports: POST /open/v1/lab/reports answered ${answer.status} ${describe(answer.body)}`,
      );
    }
    const rejected = envelope.data?.results?.find((entry) => entry.status === "REJECTED");
    if (rejected) {
      const first = rejected.errors?.[0];
      throw new Error(
        `pushing demo lab reports: ${rejected.externalId} was rejected${first ? ` (${first.field}: ${first.message})` : ""}`,
      );
    }
  });

  onProgress("waiting for the read models");
  await catchUp(http, adminToken, options.catchUpTimeoutMs ?? 60_000, signal);

  onProgress("publishing the demo reports");
  const reports = demoReports(data.period);
  for (const report of reports) {
    await http.expect(200, `saving the draft of demo report ${report.id}`, "PUT", `/api/reports/${report.id}/draft`, {
      token: authorToken,
      tenant,
      body: { title: report.title, datasource: report.datasource, spec: report.spec },
    });
    await http.expect(201, `publishing demo report ${report.id}`, "POST", `/api/reports/${report.id}/publish`, {
      token: authorToken,
      tenant,
      body: { mode: "dynamic", note: "demo" },
    });
  }

  return {
    tenant,
    clientId: client.clientId,
    clientKey: client.key,
    authorToken,
    reports: reports.map((report) => report.id),
    createdAt: new Date().toISOString(),
    patients: data.patients.length,
    labReports: data.labReports.length,
    unmatchedReports: data.unmatchedReports + data.claimableReports.length,
    criticalResults: data.criticalReports.length,
    claimableReports: data.claimableReports.length,
    unmappedReports: data.unmappedReports.length,
    elapsedMs: Date.now() - started,
  };
}

/** Waits until every projection is live and has applied every event (reports then show the pushed data). */
async function catchUp(http: DemoHttp, adminToken: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const status = await http.expect(200, "reading the projections' lag", "GET", "/api/admin/projections", {
      token: adminToken,
    });
    const projections = (status?.projections ?? []) as Array<{
      name: string;
      state: string;
      lagEvents: number;
      error: { message: string } | null;
    }>;
    const stopped = projections.find((p) => p.error);
    if (stopped) throw new Error(`projection ${stopped.name} stopped: ${stopped.error!.message}`);
    // Each projection needs a live generation that has applied everything (a rebuild in progress
    // beside it does not matter: commands read the live one).
    const names = new Set(projections.map((p) => p.name));
    const caughtUp = [...names].every((name) =>
      projections.some((p) => p.name === name && p.state === "live" && p.lagEvents === 0),
    );
    if (caughtUp || Date.now() > deadline) return;
    await sleep(200, signal);
  }
}

// ---------------------------------------------------------------------------------------------
// The demo credentials beside the embedded data: the keys are shown once by the service, so a
// later start prints them from here.

export const DEMO_CREDENTIALS_FILE = "demo-credentials.json";

export function demoCredentialsPath(dataDir: string): string {
  return path.join(dataDir, DEMO_CREDENTIALS_FILE);
}

export function saveDemoCredentials(dataDir: string, credentials: DemoCredentials): string {
  const file = demoCredentialsPath(dataDir);
  mkdirSync(dataDir, { recursive: true });
  const { tenant, clientId, clientKey, authorToken, reports, createdAt } = credentials;
  writeFileSync(
    file,
    JSON.stringify({ tenant, clientId, clientKey, authorToken, reports, createdAt }, null, 2) + "\n",
    { mode: 0o600 },
  );
  chmodSync(file, 0o600); // writeFileSync's mode applies only when it creates the file
  return file;
}

export function readDemoCredentials(dataDir: string): DemoCredentials | null {
  const file = demoCredentialsPath(dataDir);
  if (!existsSync(file)) return null;
  try {
    const parsed = JSON.parse(readFileSync(file, "utf8")) as Partial<DemoCredentials>;
    if (typeof parsed.clientKey !== "string" || typeof parsed.authorToken !== "string") return null;
    return {
      tenant: parsed.tenant ?? DEMO_TENANT,
      clientId: parsed.clientId ?? "",
      clientKey: parsed.clientKey,
      authorToken: parsed.authorToken,
      reports: Array.isArray(parsed.reports) ? parsed.reports : [],
      createdAt: parsed.createdAt ?? "",
    };
  } catch {
    return null;
  }
}
