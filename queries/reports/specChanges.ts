import { z } from "zod";
import { stripSql, type ReportSpec } from "../../commands/reports/spec/specSchema.ts";
import { jsonChanges, type PairBy } from "../kit/jsonChanges.ts";

/** `GET /api/reports/{id}/versions/{a}/diff/{b}` (issue #22): what changed between two versions' specs. */
export const specDiffSchema = z.object({
  id: z.string(),
  from: z.string().meta({ example: "v2" }),
  to: z.string().meta({ example: "draft" }),
  sqlIncluded: z.boolean().meta({
    description: "True for an author of the tenant: SQL changes show their text; otherwise they are listed as redacted",
  }),
  changes: z.array(
    z.object({
      path: z.string().meta({ example: "nodes[2].title" }),
      before: z.unknown().meta({ description: "null when added" }),
      after: z.unknown().meta({ description: "null when removed" }),
      redacted: z.literal(true).optional().meta({ description: "A query's SQL changed; its text is for authors" }),
    }),
  ),
});
export type SpecDiff = z.infer<typeof specDiffSchema>;

const byMember = (field: "id" | "name") => (member: unknown) =>
  String((member as Record<string, unknown> | null)?.[field] ?? "");

/** Nodes are paired by id and params by name, wherever they are (a drill's too): moving one is not a change. */
const SPEC_PAIRS: PairBy = (path) => {
  const last = path.at(-1);
  if (last === "nodes") return byMember("id");
  if (last === "params") return byMember("name");
  return null;
};

const SQL_PATH = /(^|\.)queries\.[^.]+\.sql$/;

/**
 * The changes from `before` to `after`. A viewer sees the specs as the view answers them, without
 * SQL, and each changed query's SQL as a redacted entry; an author sees the SQL itself.
 */
export function specChanges(before: ReportSpec, after: ReportSpec, withSql: boolean): SpecDiff["changes"] {
  const all = jsonChanges(before, after, SPEC_PAIRS);
  if (withSql) return all;
  const redacted = all.filter(
    (change) => SQL_PATH.test(change.path) && change.before !== null && change.after !== null,
  );
  return [
    ...jsonChanges(stripSql(before), stripSql(after), SPEC_PAIRS),
    ...redacted.map(({ path }) => ({ path, before: null, after: null, redacted: true as const })),
  ];
}
