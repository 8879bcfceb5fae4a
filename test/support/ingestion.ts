import { expect } from "chai";
import { localDateTime } from "../../db/localDateTime.ts";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { ADMIN, httpClient } from "./http.ts";
import { startTestService, type TestServiceOptions, useService } from "./service.ts";

export const ZHANG_SAN = { name: "张三", idCard: "11010519491231002X" };
export const LI_SI = { name: "李四", idCard: "440524188001010014" };

/** What every report of 张三 starts with: its external id, its number (`prefix` and the id), and 张三 as its patient. */
function reportOfZhangSan(prefix: string, externalId: string) {
  return {
    externalId,
    reportNo: `${prefix}-${externalId}`,
    patient: { idCard: ZHANG_SAN.idCard, name: ZHANG_SAN.name, hisPatientId: "H-1" },
  };
}

/** A realistic monthly dialysis panel for one patient. */
export function labReport(externalId: string, overrides: Record<string, unknown> = {}) {
  return {
    ...reportOfZhangSan("R", externalId),
    panelName: "透析月度检查",
    specimen: "SERUM",
    collectedAt: "2026-03-01 07:30:00",
    reportedAt: "2026-03-01 11:00:00",
    status: "FINAL",
    labName: "Central lab",
    items: [
      { itemCode: "HGB", itemName: "血红蛋白", value: 11.5, unit: "g/dL", refLow: 11.5, refHigh: 15 },
      { itemCode: "K", itemName: "钾", value: 5.6, unit: "mmol/L", abnormalFlag: "H" },
      { itemCode: "X-LOCAL-42", itemName: "某本地项目", value: "阴性", resultType: "QUALITATIVE" },
    ],
    ...overrides,
  };
}

/** An echocardiography report of 张三, as an examination system sends it. */
export function examReport(externalId: string, overrides: Record<string, unknown> = {}) {
  return {
    ...reportOfZhangSan("US", externalId),
    examType: "ECHO",
    examName: "超声心动图",
    examinedAt: "2026-03-01 09:00:00",
    reportedAt: "2026-03-01 10:00:00",
    status: "FINAL",
    department: "超声科",
    reporter: "王医生",
    reviewer: "李主任",
    findings: "左室壁增厚",
    conclusion: "左室舒张功能减低",
    items: [{ itemCode: "LVEF", itemName: "左室射血分数", value: 62, unit: "%" }],
    ...overrides,
  };
}

/** A tenant with an open-API client, an author, and 张三 registered as patient P001. */
export async function ingestionTenant(service: Pick<RunningService, "url">, tenant: string) {
  const anyTenant = httpClient(service.url!);
  // Calls of this tenant's people carry its X-Service-Tenant, as the proxy would add it.
  const call: typeof anyTenant = (method, path, options = {}) => anyTenant(method, path, { tenant, ...options });
  const client = (await call("POST", "/api/admin/clients", { token: ADMIN, body: { name: "Central lab LIS", tenant } }))
    .body as { clientId: string; key: string };
  const author = (await call("POST", "/api/admin/authors", { token: ADMIN, body: { name: "Nurse Chen", tenant } }))
    .body as { token: string };
  const registered = await call("PUT", "/api/patients/P001", {
    token: author.token,
    tenant,
    body: { ...ZHANG_SAN, ward: "A" },
  });
  if (registered.status !== 200)
    throw new Error(`patient not registered: ${registered.status} ${JSON.stringify(registered.body)}`);
  const push = (kind: "lab" | "exam", reports: unknown[]) =>
    call("POST", `/open/v1/${kind}/reports`, { token: client.key, body: { reports } });
  /** The whole unmatched queue, as the author sees it: every page (contract E.6). */
  const unmatched = () => allPages(call, "/api/unmatched?limit=1000", author.token);
  /** The open API's reconciliation of `kind` for `query` (`date=…`, `&asOf=…`), which must answer 200: its data. */
  const reconcile = async (kind: "lab" | "exam", query: string) => {
    const answer = await call("GET", `/open/v1/reconcile/${kind}?${query}`, { token: client.key });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    return answer.body.data;
  };
  return { call, client, authorToken: author.token, push, unmatched, reconcile };
}

export type IngestionTenant = Awaited<ReturnType<typeof ingestionTenant>>;

/** Every page of a list answered as an array, from `path` on through its Link rel="next" headers; each page must answer 200. */
export async function allPages(
  call: ReturnType<typeof httpClient>,
  path: string,
  token?: string,
  tenant?: string,
): Promise<Array<Record<string, any>>> {
  const rows: Array<Record<string, any>> = [];
  for (let next: string | null = path; next;) {
    const answer = await call("GET", next, { token, ...(tenant === undefined ? {} : { tenant }) });
    expect(answer.status, JSON.stringify(answer.body)).to.equal(200);
    rows.push(...(answer.body as Array<Record<string, any>>));
    next = nextPageOf(answer.headers);
  }
  return rows;
}

/** The address of the next page a Link header names (rel="next"), or null. */
export function nextPageOf(headers: Headers): string | null {
  return /^<([^>]+)>; rel="next"$/.exec(headers.get("link") ?? "")?.[1] ?? null;
}

/** The service with every projection (and `options`), and tenant h1 as ingestionTenant makes it. */
export async function startIngestionService(
  options: TestServiceOptions = {},
): Promise<{ service: RunningService; tenant: IngestionTenant }> {
  const service = await startTestService({ projections: allProjections, ...options });
  return { service, tenant: await ingestionTenant(service, "h1") };
}

/** startIngestionService as a suite's fixture: started before its tests, stopped after them. */
export function useIngestionService(options: TestServiceOptions = {}): {
  service: RunningService;
  tenant: IngestionTenant;
} {
  return useService(() => startIngestionService(options));
}

/** 07:30 on `day` of the month `months` before this one: a sample time for a history of monthly panels. */
/**
 * `count` monthly panels of 张三 (`${prefix}-1` …), the last one a month ago: each collected on the
 * 10th at 07:30 and reported three hours later, the i-th (from 0) with `items(i)`.
 */
export function monthlyPanels(prefix: string, count: number, items: (i: number) => Array<Record<string, unknown>>) {
  return Array.from({ length: count }, (_, i) => {
    const taken = monthsAgo(count - i);
    return labReport(`${prefix}-${i + 1}`, {
      collectedAt: localDateTime(taken),
      reportedAt: localDateTime(new Date(taken.getTime() + 3 * 3_600_000)),
      items: items(i),
    });
  });
}

export function monthsAgo(months: number, day = 10): Date {
  const now = new Date();
  return new Date(now.getFullYear(), now.getMonth() - months, day, 7, 30, 0);
}
