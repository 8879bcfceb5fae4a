import { importsOf, sourceFiles, type ImportEdge } from "./importGraph.ts";

/*
 * The rules of the tree (docs/architecture.md), as checks over the import graph. Each returns the
 * imports that break it, written `from -> to`.
 */

/** The server's layers, lowest first: a layer imports only from its own and the ones below it. */
export const LAYERS = ["db", "commands", "projections", "queries", "reactors", "src"] as const;
export type Layer = (typeof LAYERS)[number];

export const layerOf = (file: string): Layer | null =>
  (LAYERS as readonly string[]).includes(file.split("/")[0]!) ? (file.split("/")[0] as Layer) : null;

export const serverEdges = (): ImportEdge[] => LAYERS.flatMap((layer) => sourceFiles(layer)).flatMap(importsOf);
export const webEdges = (): ImportEdge[] => sourceFiles("web").flatMap(importsOf);

const written = (edge: ImportEdge) => `${edge.from} -> ${edge.to}`;

/**
 * What the read side may take from commands/: a context's published language (its events.ts: the
 * event union and stream codecs), the kit's event types, and the report format (commands/reports/spec/),
 * which report events carry.
 */
export const isPublishedLanguage = (file: string) =>
  /^commands\/[a-z]+\/events\.ts$/.test(file) || file.startsWith("commands/reports/spec/");

/** Imports that run back up the layers (commands importing the read side, db importing anything above it, …). */
export function upwardImports(edges: readonly ImportEdge[]): string[] {
  return edges
    .filter((edge) => {
      const from = layerOf(edge.from);
      const to = layerOf(edge.to);
      return from !== null && to !== null && LAYERS.indexOf(to) > LAYERS.indexOf(from);
    })
    .map(written);
}

/**
 * Projections and queries reaching into commands/ beyond the published language. (Reactors act:
 * they issue commands, so they may import them; what they read of events comes from events.ts too.)
 */
export function readSideReachingIntoCommands(edges: readonly ImportEdge[]): string[] {
  return edges
    .filter(
      (edge) =>
        ["projections", "queries"].includes(layerOf(edge.from) ?? "") &&
        layerOf(edge.to) === "commands" &&
        !isPublishedLanguage(edge.to),
    )
    .map(written);
}

/**
 * Modules the browser bundles share with the server at run time: pure functions with no server
 * dependency, so that a chart or a value reads the same in the embed page and in an export, a
 * page offers exactly what the roles the server checks allow, a page masks an id card as the
 * answers do, and a page and an exported file word a failed query alike.
 */
export const SHARED_WITH_WEB = new Set([
  "src/reports/charts/chartOptions.ts",
  "src/reports/charts/formatValue.ts",
  "src/reports/charts/highlight.ts",
  "src/reports/charts/tableColumns.ts",
  "src/reports/export/queryFailureWords.ts",
  "commands/reports/spec/specVocabulary.ts",
  "commands/credentials/staffRoleRanks.ts",
  "commands/patients/nationalId.ts",
]);

/** web/ importing server code for more than its types. */
export function webRunTimeImports(edges: readonly ImportEdge[]): string[] {
  return edges
    .filter((edge) => !edge.typeOnly && !edge.to.startsWith("web/") && !SHARED_WITH_WEB.has(edge.to))
    .map(written);
}
