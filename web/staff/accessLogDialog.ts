import type { AccessRecordAnswer } from "../../queries/access/accessLog.ts";
import { isStaffRole } from "../../commands/credentials/staffRoleRanks.ts";
import { accessLogHref } from "./accessLogPage.ts";
import { openModal } from "./dialog.ts";
import { el, localTime } from "./dom.ts";
import { loader, type PageContext } from "./page.ts";
import { segment } from "./staffApi.ts";
import { actorName } from "./actorTexts.ts";

/** The period the dialog reads, and how many records it shows of it (the newest). */
const DAYS = 30;
const SHOWN = 200;
/** Pages of the API read at most, so a patient looked at every minute cannot keep the dialog loading. */
const PAGES = 10;

const pad = (n: number) => String(n).padStart(2, "0");
const day = (date: Date) => `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;

/**
 * "Who looked at this patient" (contract E.4, role admin): the access records of the last days
 * that name the patient, newest first. The API answers oldest first a page at a time; the dialog
 * follows its `Link: rel="next"` and keeps the newest.
 */
export function accessLogDialog(ctx: PageContext, patientRef: string, name: string): void {
  const { texts } = ctx;
  openModal(texts.accessLogTitle(name), texts.close, (modal) => {
    const box = el("div", { class: "access-log" });
    void loader(box, texts, async () => {
      const since = new Date();
      since.setDate(since.getDate() - DAYS);
      let path: string | null = `/api/patients/${segment(patientRef)}/access-log?from=${day(since)}&limit=1000`;
      let records: AccessRecordAnswer[] = [];
      let read = 0;
      for (let page = 0; path && page < PAGES; page++) {
        const { body, headers }: { body: AccessRecordAnswer[]; headers: Headers } = await ctx.api.exchange<
          AccessRecordAnswer[]
        >("GET", path);
        read += body.length;
        records = [...records, ...body].slice(-SHOWN);
        path = /<([^>]+)>;\s*rel="next"/.exec(headers.get("link") ?? "")?.[1] ?? null;
      }
      return recordTable(ctx, records.reverse(), path !== null || read > SHOWN);
    })();
    // The whole log of the patient, filtered further and exported, is on the access log page (admins of every ward).
    const filterAndExport =
      ctx.session.caller.wards === null
        ? el(
            "p",
            { class: "access-log-link" },
            el("a", { href: accessLogHref({ patientRef }), onclick: () => modal.close() }, texts.accessFilterAndExport),
          )
        : null;
    return [
      el("p", { class: "intro" }, texts.accessLogIntro(DAYS)),
      ...(filterAndExport ? [filterAndExport] : []),
      box,
    ];
  });
}

function recordTable(ctx: PageContext, records: AccessRecordAnswer[], more: boolean): Node {
  const { texts } = ctx;
  if (records.length === 0) return el("p", { class: "empty" }, texts.noAccessRecords);
  const head = el(
    "tr",
    {},
    ...[
      texts.accessColWhen,
      texts.accessColWho,
      texts.accessColRoles,
      texts.accessColAction,
      texts.accessColOutcome,
    ].map((c) => el("th", { scope: "col" }, c)),
  );
  const rows = records.map((record) =>
    el(
      "tr",
      { "data-who": record.who, "data-outcome": record.outcome },
      el("td", { class: "when" }, localTime(record.at)),
      el("th", { scope: "row" }, actorName(record, ctx.lang)),
      el("td", {}, record.roles.map((role) => (isStaffRole(role) ? texts.roleNames[role] : role)).join(", ")),
      el("td", { "data-action": record.action }, texts.actions[record.action] ?? el("code", {}, record.action)),
      el("td", { class: `outcome outcome-${record.outcome}` }, texts.outcomes[record.outcome]),
    ),
  );
  return el(
    "div",
    {},
    // A table wider than a phone scrolls inside its frame, which keyboard users reach with Tab.
    el(
      "div",
      { class: "table-wrap", tabindex: "0", role: "region", "aria-label": texts.accessLog },
      el("table", { class: "data access-records" }, el("thead", {}, head), el("tbody", {}, ...rows)),
    ),
    more ? el("p", { class: "muted" }, texts.accessMore(records.length)) : null,
  );
}
