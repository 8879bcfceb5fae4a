import { existsSync } from "node:fs";

/*
 * Apart from chromium.ts so that the benchmark runner can ask without loading playwright-core
 * into every benchmark group's process (it would count in their memory figures).
 */

/** Debian's chromium (`apt-get install chromium`); CI installs it in .ci/run. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/** Why Chromium cannot be launched here, or null when it can. */
export function chromiumMissing(): string | null {
  if (existsSync(CHROMIUM_PATH)) return null;
  return `no chromium at ${CHROMIUM_PATH}: install Debian's package (apt-get update && apt-get install -y chromium) or set CHROMIUM_PATH`;
}
