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

/**
 * A staff-pages suite's `before`: the screenshot folder, the staff bundle, the service with every
 * projection (and `env`), tenant `tenant` as ingestionTenant makes it, and chromium.
 */
export async function startStaffBrowserSuite(
  tenantName: string,
  options: { env?: Record<string, string>; viewport?: { width: number; height: number } } = {},
): Promise<{ service: RunningService; tenant: IngestionTenant; browser: Chromium }> {
  mkdirSync(OUT, { recursive: true });
  ensureStaffBundle();
  const service = await startTestService({ projections: allProjections, env: options.env });
  const [tenant, browser] = await Promise.all([ingestionTenant(service, tenantName), launchChromium({ viewport: options.viewport })]);
  return { service, tenant, browser };
}

/** A new page of `browser` that adds each Content Security Policy violation its console reports to `cspViolations`. */
export async function pageRecordingCspViolations(browser: Chromium, cspViolations: string[]): Promise<Page> {
  const page = await browser.context.newPage();
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) cspViolations.push(message.text());
  });
  return page;
}
