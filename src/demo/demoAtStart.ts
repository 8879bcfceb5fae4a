/**
 * What `start` does about the demo tenant (contract C.7): decide whether to load it, and the
 * lines that tell a person how to use it (keys, report URLs).
 */
import path from "node:path";
import { DEMO_TENANT, DEMO_TRY_PATIENT } from "./demoData.ts";
import { DEMO_REPORT_IDS } from "./demoReports.ts";
import { demoCredentialsPath, readDemoCredentials, type DemoCredentials } from "./loadDemo.ts";

export type DemoAtStart =
  /** No demo keys on file: the demo is (most likely) loaded now — print a line, then call loadDemo. */
  | { kind: "load" }
  /** Keys on file from an earlier start: print them; loadDemo then finds the demo in place and does nothing. */
  | { kind: "known"; credentials: DemoCredentials }
  /** Wanted but impossible, with the reason. */
  | { kind: "unavailable"; reason: string };

/**
 * Decided without a round trip, before the service starts (its /readyz says from the first answer
 * on that the demo data is loading); `loadDemo` itself asks the service whether the demo tenant is
 * already there.
 */
export function demoAtStart(servesHttp: boolean, adminToken: string | undefined, dataDir: string): DemoAtStart {
  if (!servesHttp)
    return {
      kind: "unavailable",
      reason: "the demo is loaded through the HTTP interface: start with --role all or --role api",
    };
  const credentials = readDemoCredentials(dataDir);
  if (credentials) return { kind: "known", credentials };
  if (!adminToken)
    return { kind: "unavailable", reason: "set ADMIN_TOKEN: the demo's keys are created through /api/admin" };
  return { kind: "load" };
}

/** The demo block of the welcome text. */
export function demoWelcomeLines(url: string, credentials: DemoCredentials | null, dataDir: string): string[] {
  const file = path.resolve(demoCredentialsPath(dataDir));
  const lines = [`  Demo tenant:   "${DEMO_TENANT}" (send the header X-Service-Tenant: ${DEMO_TENANT})`];
  // Contract E.3: the keys stay in their owner-only file; the console says where.
  if (credentials) {
    lines.push(`    Keys:        in ${file} (readable by this OS user only)`);
    lines.push(`      clientKey:   the lab's key (POST ${url}/open/v1/lab/reports, Authorization: Bearer <key>)`);
    lines.push(`      authorToken: the author's token (drafts, publishing, patients: Authorization: Bearer <token>)`);
  } else {
    lines.push(
      `    Keys:        not in ${file}; make new ones with \`npm run cli -- keys create --tenant ${DEMO_TENANT} --name …\` and \`authors create\``,
    );
  }
  const reports = credentials?.reports.length ? credentials.reports : [...DEMO_REPORT_IDS];
  reports.forEach((id, i) => {
    lines.push(
      `    ${i === 0 ? "Reports:    " : "            "} ${url}/api/reports/${id}/view   ${url}/embed/reports/${id}?tenant=${DEMO_TENANT}`,
    );
  });
  lines.push(
    `    Staff pages: ${url}/staff?tenant=${DEMO_TENANT} (reports, critical results, unmatched queue, patients; sign in with the author token)`,
  );
  lines.push(
    `    Push a value: for demo patient ${DEMO_TRY_PATIENT}, whose id card the getting-started article prints (${url}/md/getting-started.md)`,
  );
  lines.push(`    Try:         curl -H 'X-Service-Tenant: ${DEMO_TENANT}' ${url}/api/reports`);
  return lines;
}
