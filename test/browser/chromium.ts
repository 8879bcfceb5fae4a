import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium, type BrowserContext, type LaunchOptions } from "playwright-core";
import { CHROMIUM_PATH, chromiumMissing } from "./chromiumPath.ts";

export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

export interface Chromium {
  context: BrowserContext;
  close(): Promise<void>;
}

/**
 * Chromium with the flags above and a fresh profile (`--user-data-dir`, which playwright passes
 * for a persistent context), removed again on close.
 */
export async function launchChromium(
  options: { viewport?: { width: number; height: number } } & Pick<LaunchOptions, "timeout"> = {},
): Promise<Chromium> {
  const missing = chromiumMissing();
  if (missing) throw new Error(missing);
  const userDataDir = mkdtempSync(path.join(os.tmpdir(), "dialysis-hub-chromium-"));
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      args: CHROMIUM_FLAGS,
      viewport: options.viewport ?? { width: 1280, height: 900 },
      reducedMotion: "reduce",
      acceptDownloads: true,
      timeout: options.timeout ?? 30_000,
    });
    return {
      context,
      async close() {
        await context.close().catch(() => {});
        rmSync(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
}

const WEB_DIR = new URL("../../web/", import.meta.url);

/** Builds the embed bundle when it is missing (a clone whose `npm install` did not run `prepare`). */
export function ensureEmbedBundle(): void {
  const dist = new URL("dist/", WEB_DIR);
  if (["boot.js", "embed.js", "embed.css"].every((file) => existsSync(new URL(file, dist)))) return;
  execFileSync(process.execPath, [fileURLToPath(new URL("build.mjs", WEB_DIR))], { stdio: "inherit" });
}
