import { mkdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { ingestionTenant, type IngestionTenant } from "../support/ingestion.ts";
import { startTestService } from "../support/service.ts";
import { launchChromium, type Chromium } from "./chromium.ts";
import { ensureStaffBundle } from "./staffBundle.ts";

/** Screenshots of this run; the folder is gitignored. */
export const OUT = fileURLToPath(new URL("../../test-output/", import.meta.url));

export interface StaffBrowserSuite {
  service: RunningService;
  tenant: IngestionTenant;
  /** What the consoles of its pages reported as Content Security Policy violations. */
  cspViolations: string[];
  /** A new page in chromium that adds the Content Security Policy violations it reports to `cspViolations`. */
  newPage(): Promise<Page>;
}

/**
 * A staff-pages suite's fixture. Before its tests: the screenshot folder, the staff bundle, the
 * service with every projection (and `env`), tenant `tenantName` as ingestionTenant makes it, and
 * chromium; after them chromium is closed and the service stopped.
 */
export function useStaffBrowserSuite(
  tenantName: string,
  options: { env?: Record<string, string>; viewport?: { width: number; height: number } } = {},
): StaffBrowserSuite {
  let browser: Chromium | undefined;
  const fixture = {
    cspViolations: [] as string[],
    newPage: () => pageRecordingCspViolations(browser!, fixture.cspViolations),
  } as StaffBrowserSuite;
  before(async function () {
    this.timeout(180_000);
    mkdirSync(OUT, { recursive: true });
    ensureStaffBundle();
    fixture.service = await startTestService({ projections: allProjections, env: options.env });
    [fixture.tenant, browser] = await Promise.all([
      ingestionTenant(fixture.service, tenantName),
      launchChromium({ viewport: options.viewport }),
    ]);
  });
  after(async () => {
    await browser?.close();
    await fixture.service?.stop();
  });
  return fixture;
}

/** A new page of `browser` that adds each Content Security Policy violation its console reports to `cspViolations`. */
async function pageRecordingCspViolations(browser: Chromium, cspViolations: string[]): Promise<Page> {
  const page = await browser.context.newPage();
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  return page;
}

/**
 * A new page of `staff` signed in with a token (the tenant's author token unless given) at
 * `/staff?tenant=<tenant>&lang=<lang><fragment>`, once the header names who is signed in.
 */
export async function signedInPage(
  staff: StaffBrowserSuite,
  tenant: string,
  at: { lang: "en" | "zh"; fragment: string },
  token = staff.tenant.authorToken,
): Promise<Page> {
  const page = await staff.newPage();
  await page.goto(`${staff.service.url}/staff?tenant=${tenant}&lang=${at.lang}${at.fragment}`);
  await page.locator("#sign-in-tenant").fill(tenant);
  await page.locator("#sign-in-token").fill(token);
  await page.locator("#sign-in-token").press("Enter");
  await page.locator(".who").waitFor();
  return page;
}
