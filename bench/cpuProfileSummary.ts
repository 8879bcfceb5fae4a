import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/*
 * A V8 CPU profile (node --cpu-prof) summarised to where the time went: each sample's time goes to
 * the category of the innermost frame that has one, walking out from the running function. V8
 * counts a builtin's time (a RegExp, JSON.parse) as its caller's own; JSON parse and stringify
 * have frames of their own when the profiled process loaded jsonFrames.mjs, and count as JSON
 * wherever they are called from (the pg driver's jsonb columns included); a
 * frame of node's own library (streams, sockets, buffers) counts only when no frame above it has a
 * category. The service runs from its build (dist/*.js, one bundle of our sources): esbuild marks
 * where each source file starts with a `// path/to/file.ts` line, which tells a frame's source.
 */

const TOP_FUNCTIONS = 60;

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface CategoryTime {
  category: string;
  ms: number;
  /** Of the profiled process's busy time in the window (everything but idle). */
  share: number;
}

/** The category of a source file of ours, by its path from the checkout's root. */
function sourceCategory(source: string): string {
  const rules: Array<[RegExp, string]> = [
    [/^commands\/ingestion\/(itemMapping|units)\.ts$/, "item mapping"],
    [
      /^(commands\/ingestion\/patientMatching|commands\/patients\/nationalId|src\/patients\/registeredPatients)\.ts$|^queries\/patients\//,
      "patient matching",
    ],
    [/^commands\/ingestion\/reportSchemas\.ts$/, "validation (zod, report schemas)"],
    [/^projections\/ingestion\/(labResults|resultSummaries|clinicalTargets)\.ts$/, "projection lab_results"],
    [/^projections\/ingestion\/(labReports|reportDays)\.ts$/, "projection lab_reports"],
    [/^projections\/runtime\/ledgerSealer\.ts$|^db\/ledger\.ts$/, "ledger sealing"],
    [/^projections\/runtime\//, "projection runtime (feed, batches)"],
    [/^commands\/alerts\/criticalResults\.ts$/, "reactor critical results"],
    [/^reactors\/bulkImporter\.ts$|^commands\/bulk\//, "bulk import (pieces, checkpoints)"],
    [/^commands\/ingestion\//, "push command (decide, append)"],
    [/^db\/eventStore\.ts$/, "event store"],
    [/^src\/(http|ingestion)\//, "HTTP routes"],
  ];
  for (const [pattern, category] of rules) if (pattern.test(source)) return category;
  const projection = /^projections\/[a-z]+\/([A-Za-z]+)\.ts$/.exec(source);
  if (projection) return `projection ${projection[1]}`;
  if (source.startsWith("node_modules/")) return packageCategory(source);
  return "other code of ours";
}

/** The category of a package's file (`…/node_modules/<package>/…`). */
function packageCategory(url: string): string {
  const name = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1] ?? "";
  if (name === "zod") return "validation (zod, report schemas)";
  if (
    /^(pg|pg-protocol|pg-pool|pg-types|pg-cursor|pg-int8|pg-connection-string|postgres-(array|bytea|date|interval)|pgpass)$/.test(
      name,
    )
  )
    return "pg driver";
  if (name === "pg-boss") return "pg-boss";
  if (/^(koa|@koa\/router|koa-compose|raw-body|iconv-lite|content-type|co-body|type-is|http-errors)$/.test(name))
    return "HTTP (koa, bodies)";
  if (/^pino/.test(name) || name === "sonic-boom") return "logging";
  if (name === "@lhncbc/ucum-lhc") return "item mapping";
  if (name === "prom-client") return "metrics";
  return "other packages";
}

/** Where each source file of a bundle starts: its `// path.ts` lines, by line number. */
class BundleSources {
  private readonly files = new Map<string, Array<{ line: number; source: string }>>();

  sourceOf(url: string, line: number): string | null {
    let starts = this.files.get(url);
    if (!starts) {
      starts = [];
      try {
        readFileSync(fileURLToPath(url), "utf8")
          .split("\n")
          .forEach((text, index) => {
            const marker =
              /^\/\/ ((?:src|commands|projections|queries|reactors|db|node_modules)\/\S+\.[cm]?[jt]s)$/.exec(text);
            if (marker) starts!.push({ line: index, source: marker[1]! });
          });
      } catch {
        // A chunk of an earlier build, gone: its frames count as ours, unplaced.
      }
      this.files.set(url, starts);
    }
    let found: string | null = null;
    for (const start of starts) {
      if (start.line > line) break;
      found = start.source;
    }
    return found;
  }
}

const sources = new BundleSources();

/** A frame's category; "weak" ones (node's own library) count only if no frame further out has one; null: ask the caller. */
function frameCategory(frame: CallFrame): { category: string; weak: boolean } | null {
  const { functionName, url } = frame;
  if (functionName === "(garbage collector)") return { category: "GC", weak: false };
  if (functionName === "(idle)") return { category: "idle", weak: false };
  if (functionName === "(program)") return { category: "native (not attributed to JS)", weak: false };
  if (url === "") return null;
  if (url.endsWith("/bench/jsonFrames.mjs")) return { category: "JSON parse/stringify", weak: false };
  if (url.startsWith("node:zlib") || url.startsWith("node:internal/zlib"))
    return { category: "compression (zlib)", weak: false };
  if (url.startsWith("node:")) return { category: "node internals (sockets, streams, buffers)", weak: true };
  if (url.includes("/node_modules/")) return { category: packageCategory(url), weak: false };
  if (url.includes("/dist/")) {
    const source = sources.sourceOf(url, frame.lineNumber);
    return { category: source ? sourceCategory(source) : "other code of ours", weak: false };
  }
  const fromRoot = /\/((?:src|commands|projections|queries|reactors|db)\/.*)$/.exec(url)?.[1];
  return { category: fromRoot ? sourceCategory(fromRoot) : "other", weak: false };
}

/**
 * Self time by category over the samples taken between `fromUs` and `toUs` (the profile's clock:
 * CLOCK_MONOTONIC in µs, as process.hrtime in any process of the machine).
 */
export function summariseCpuProfile(
  profile: CpuProfile,
  fromUs = -Infinity,
  toUs = Infinity,
): {
  categories: CategoryTime[];
  topFunctions: Array<{ fn: string; category: string; ms: number }>;
  busyMs: number;
  windowMs: number;
} {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const categoryOfNode = new Map<number, string>();
  const categoryOf = (id: number): string => {
    let category = categoryOfNode.get(id);
    if (category) return category;
    let weak: string | null = null;
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) {
      const found = frameCategory(byId.get(at)!.callFrame);
      if (!found) continue;
      if (!found.weak) {
        category = found.category;
        break;
      }
      weak ??= found.category;
    }
    category ??= weak ?? "other";
    categoryOfNode.set(id, category);
    return category;
  };
  const ms = new Map<string, number>();
  // The running functions themselves, to tell what a category's time is made of.
  const functionMs = new Map<string, { fn: string; category: string; ms: number }>();
  const functionOf = (id: number) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const where = url.includes("/dist/")
      ? (sources.sourceOf(url, lineNumber) ?? url)
      : url.replace(/^.*\/node_modules\//, "");
    return `${functionName || "(anonymous)"} ${where}`;
  };
  let time = profile.startTime;
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0;
    const duration = profile.timeDeltas[i + 1] ?? 0;
    if (time < fromUs || time > toUs) continue;
    first = Math.min(first, time);
    last = Math.max(last, time);
    const category = categoryOf(profile.samples[i]!);
    ms.set(category, (ms.get(category) ?? 0) + duration / 1000);
    const fn = functionOf(profile.samples[i]!);
    const entry = functionMs.get(fn) ?? { fn, category, ms: 0 };
    entry.ms += duration / 1000;
    functionMs.set(fn, entry);
  }
  const busyMs = [...ms].filter(([category]) => category !== "idle").reduce((sum, [, v]) => sum + v, 0);
  const categories = [...ms]
    .map(([category, v]) => ({
      category,
      ms: Math.round(v),
      share: category === "idle" ? 0 : Math.round((v / busyMs) * 1000) / 1000,
    }))
    .sort((a, b) => b.ms - a.ms);
  const topFunctions = [...functionMs.values()]
    .filter((f) => f.category !== "idle")
    .sort((a, b) => b.ms - a.ms)
    .slice(0, TOP_FUNCTIONS)
    .map((f) => ({ ...f, ms: Math.round(f.ms) }));
  return { categories, topFunctions, busyMs: Math.round(busyMs), windowMs: Math.round((last - first) / 1000) };
}
