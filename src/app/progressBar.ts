import { Presets, SingleBar } from "cli-progress";

/**
 * A progress bar for the command line: redrawn in place on a terminal, a line every few seconds
 * otherwise (a log file, CI). `{rate}` is the caller's to fill (items per second since `start`).
 */
export function progressBar(unit: string): SingleBar {
  return new SingleBar(
    {
      format: `{bar} {value}/{total} ${unit} | {rate} ${unit}/s | ETA {eta_formatted} | {status}`,
      noTTYOutput: true,
      notTTYSchedule: 5000,
      etaBuffer: 40,
      hideCursor: true,
    },
    Presets.shades_classic,
  );
}

/** Items per second from a start, for `{rate}`. */
export function ratePerSecond(startedAt: number, done: number): number {
  return Math.round(done / Math.max((performance.now() - startedAt) / 1000, 0.001));
}
