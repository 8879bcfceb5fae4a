import { reportStreams, type ReportEvent } from "../../commands/reports/events.ts";
import type { StoredEvent } from "../../db/eventStore.ts";
import type { Tx } from "../../db/pool.ts";
import type { Projection } from "../runtime/projection.ts";
import { isLocalizedWords } from "../../commands/reports/spec/localizedText.ts";

/** The spec's title per language, as the list shows it in the reader's (null: one title for all). */
const titlesOf = (spec: { title?: unknown }): string | null =>
  isLocalizedWords(spec.title) ? JSON.stringify(spec.title) : null;

/** Reports, their drafts and every published version (with the frozen results of snapshots). */
export const reportsProjection: Projection<ReportEvent> = {
  name: "reports",
  // 2: report_snapshots keep a snapshot's ward scope and each ward's freeze (contract G.1).
  // 3: reports keep the spec's title per language (issue #54).
  version: 3,
  handles: ["ReportDraftSaved", "ReportDraftDiscarded", "ReportVersionPublished"],
  tables: ["reports", "report_drafts", "report_versions", "report_snapshots"],
  ddl: "projections/reports/reports.sql",
  async apply(tx: Tx, event: StoredEvent<ReportEvent>) {
    const key = [event.tenant, reportStreams.key(event.streamId)];
    const who = event.data.who ?? event.metadata.actor;
    switch (event.type) {
      case "ReportDraftSaved": {
        const draft = event.data;
        await tx.query(
          `insert into report_drafts values ($1, $2, $3, $4, $5, $6, $7, $8)
           on conflict (tenant, report_id) do update set title = excluded.title, datasource = excluded.datasource,
             spec = excluded.spec, audit = excluded.audit, saved_at = excluded.saved_at, who = excluded.who`,
          [
            ...key,
            draft.title,
            draft.datasource,
            JSON.stringify(draft.spec),
            JSON.stringify(draft.audit),
            event.recordedAt,
            who,
          ],
        );
        await tx.query(
          `insert into reports values ($1, $2, $3, $4, $5, null, true, $6)
           on conflict (tenant, report_id) do update set title = excluded.title, datasource = excluded.datasource,
             updated_at = excluded.updated_at, has_draft = true, titles = excluded.titles`,
          [...key, draft.title, draft.datasource, event.recordedAt, titlesOf(draft.spec)],
        );
        break;
      }
      case "ReportDraftDiscarded":
        await tx.query("delete from report_drafts where tenant = $1 and report_id = $2", key);
        await tx.query("update reports set has_draft = false where tenant = $1 and report_id = $2", key);
        // A report that was never published is gone with its only draft.
        await tx.query("delete from reports where tenant = $1 and report_id = $2 and published_version is null", key);
        break;
      case "ReportVersionPublished": {
        const version = event.data;
        await tx.query(`insert into report_versions values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`, [
          ...key,
          version.no,
          version.title,
          version.datasource,
          JSON.stringify(version.spec),
          JSON.stringify(version.params),
          version.mode,
          version.note,
          JSON.stringify(version.audit),
          event.recordedAt,
          who,
          version.restoredFrom ?? null,
        ]);
        if (version.frozen) {
          await tx.query("insert into report_snapshots values ($1, $2, $3, $4, $5, $6)", [
            ...key,
            version.no,
            JSON.stringify(version.frozen),
            version.frozenFor === undefined ? null : JSON.stringify(version.frozenFor),
            version.frozenByWard === undefined ? null : JSON.stringify(version.frozenByWard),
          ]);
        }
        const consumesDraft = version.restoredFrom === undefined;
        if (consumesDraft) await tx.query("delete from report_drafts where tenant = $1 and report_id = $2", key);
        await tx.query(
          `insert into reports values ($1, $2, $3, $4, $5, $6, false, $8)
           on conflict (tenant, report_id) do update set title = excluded.title, datasource = excluded.datasource,
             updated_at = excluded.updated_at, published_version = excluded.published_version,
             has_draft = reports.has_draft and not $7, titles = excluded.titles`,
          [
            ...key,
            version.title,
            version.datasource,
            event.recordedAt,
            version.no,
            consumesDraft,
            titlesOf(version.spec),
          ],
        );
        break;
      }
    }
  },
};
