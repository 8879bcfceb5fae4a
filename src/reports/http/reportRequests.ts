import type { Context, Middleware } from "koa";
import { z } from "zod";
import type { Db } from "../../../db/pool.ts";
import { readAsTenant, type TenantReader } from "../../../db/tenantScope.ts";
import { ViewingRefusal, type RefusalKind } from "../../../queries/reports/viewing.ts";
import { REPORT_ID_PATTERN } from "../../../commands/reports/spec/specVocabulary.ts";
import { HttpError } from "../../http/httpError.ts";
import { rolesAllow } from "../../../commands/credentials/staffRoles.ts";
import { exportLangField, type ExportLang } from "../export/exportWords.ts";
import { SPEC_LANGS, type SpecLang } from "../../../commands/reports/spec/localizedText.ts";

/** What the report routes share in HTTP: the bodies of the viewing calls, the report id of a path, the viewing rules' refusals as statuses. */

// The bodies of the viewing calls (contract A.3). Which params and drill args a body may name
// depends on the version's spec, so they are checked at run time (queries/reports/viewedLayer.ts);
// these schemas describe the shape for the OpenAPI document.
export const versionField = z.string().nullish().meta({
  description: 'v<n> (e.g. "v3") or "draft"; omitted: the current published version (409 when there is none)',
});
export const paramValuesField = z
  .record(z.string(), z.unknown())
  .nullish()
  .meta({
    description:
      "Filter values by declared param name: a missing key takes the version's published value, null means no " +
      "restriction, a range is [from, to], a multi-select an array. An undeclared name or a value of the wrong " +
      "JSON type is answered 400.",
    example: { period: ["2026-01-01", "2026-03-31"], wards: null },
  });
const drillArgsField = z
  .record(z.string(), z.unknown())
  .nullish()
  .meta({
    description: "Values of the drill target's declared args, by name (the clicked row's columns)",
    example: { month: "2026-02-01" },
  });
export const dataRequest = z.object({ version: versionField, params: paramValuesField });

/**
 * The reader's language (issue #54): the report's own words (titles, labels, texts, given per
 * language in the spec) are answered in it, else in the other language given. English when the
 * call names none, as the exports' own words.
 */
export const viewerLangField = z
  .enum(SPEC_LANGS, { error: "lang must be zh or en (the reader's language), or be left out for English." })
  .optional()
  .meta({
    description:
      "The reader's language, zh or en (default en): a title, label or text the spec gives per language is answered in it, else in the other one given",
  });

/** The language a viewing call asks for, in `?lang=` or its body's `lang`: English when it names none. */
export function viewerLangOf(sent: unknown): SpecLang {
  const lang = viewerLangField.safeParse(sent ?? undefined);
  if (!lang.success) throw new HttpError(400, lang.error.issues[0]!.message);
  return lang.data ?? "en";
}

export const drillRequest = dataRequest.extend({
  drill: z.string().meta({ description: "A key of the spec's drills" }),
  args: drillArgsField,
  lang: viewerLangField,
});
export const exportRequest = dataRequest.extend({
  drill: z
    .string()
    .nullish()
    .meta({ description: "A key of the spec's drills: export that drill-through layer instead of the report" }),
  args: drillArgsField,
  lang: exportLangField,
});

/** The language an export body asks its file's own words in (issue #34): en when it names none. */
export function exportLangOf(body: Record<string, unknown>): ExportLang {
  const lang = exportLangField.safeParse(body.lang ?? undefined);
  if (!lang.success) throw new HttpError(400, lang.error.issues[0]!.message);
  return lang.data ?? "en";
}

export function readFor<T>(db: Db, ctx: Context, work: (reader: TenantReader) => Promise<T>): Promise<T> {
  return readAsTenant<T>(db, ctx.state.tenant, work);
}

/** The `:id` of a report route; an id that cannot be a report's names none. */
export function reportIdOf(ctx: Context): string {
  const id = ctx.params.id!;
  if (!REPORT_ID_PATTERN.test(id))
    throw new HttpError(
      404,
      `There is no report ${id}; report ids are lower-case letters, digits and '-'.`,
      {},
      "report-version-not-found",
    );
  return id;
}

export function reportBody(ctx: Context): Record<string, unknown> {
  const body = ctx.request.body ?? {};
  if (typeof body !== "object" || Array.isArray(body) || body === null)
    throw new HttpError(400, "Send a JSON object as the request body.");
  return body as Record<string, unknown>;
}

const REFUSAL_STATUS: Record<RefusalKind, number> = { invalid: 400, "not-found": 404, conflict: 409 };

/** A refusal of the viewing rules as the HTTP answer it stands for; any other error as it is. */
export function asHttpError(error: unknown): unknown {
  return error instanceof ViewingRefusal
    ? new HttpError(
        REFUSAL_STATUS[error.kind],
        error.message,
        {},
        error.reason === "never-published"
          ? "report-never-published"
          : error.kind === "not-found"
            ? "report-version-not-found"
            : undefined,
      )
    : error;
}

/** Answers a viewing route's refusals (queries/reports/viewing.ts) with their statuses. */
export const viewingRefusals: Middleware = async (_ctx, next) => {
  try {
    await next();
  } catch (error) {
    throw asHttpError(error);
  }
};

/**
 * A researcher (contract G.1) may view and export reports of the `research` data source only: its
 * relations carry no names and pseudonyms for patientRefs. Any other report answers 403 for them.
 */
export function refuseBeyondResearch(ctx: Context, version: { datasource: string }): void {
  const principal = ctx.state.principal;
  if (!principal || rolesAllow(principal.roles, "viewer") || version.datasource === "research") return;
  throw new HttpError(
    403,
    `A researcher may view only reports of the research data source; this report reads ${version.datasource}. Ask an author for a research version of it.`,
    {},
    "role-needed",
  );
}

/** The data source of the reports a caller may see listed: a researcher's are those of `research`; null: every report. */
export function listedSource(ctx: Context): "research" | null {
  const principal = ctx.state.principal;
  return !principal || rolesAllow(principal.roles, "viewer") ? null : "research";
}
