/**
 * Who did something, as a page names them (issue #54): a person or system by the name of their
 * credential, as stored; the operator's ADMIN_TOKEN and a viewer without a credential by the
 * page's words, not by the service's "admin" and "anonymous"; and the service's own workers (the
 * reactors that claim, alert and re-map, recorded by their names: `delta-checks`) by what they do.
 */
import type { Lang } from "../types.ts";

const ACTORS: Record<Lang, { admin: string; anonymous: string }> = {
  zh: { admin: "系统管理员（管理令牌）", anonymous: "未登录的查看者" },
  en: { admin: "Administrator (admin token)", anonymous: "Viewer without sign-in" },
};

/**
 * The names the service's workers record as who acted (reactors/, commands/alerts/): `auto` is a
 * report history's automatic claim (contract D.1), the others the metadata's actor.
 */
const SYSTEM_ACTORS: Record<Lang, Record<string, string>> = {
  zh: {
    auto: "系统（自动认领）",
    "auto-claim": "系统（自动认领）",
    "critical-results": "系统（危急值核查）",
    "delta-checks": "系统（差值核查）",
    "item-remap": "系统（项目重新映射）",
    "bulk import": "系统（批量导入）",
    system: "系统",
  },
  en: {
    auto: "System (automatic claim)",
    "auto-claim": "System (automatic claim)",
    "critical-results": "System (critical result checks)",
    "delta-checks": "System (delta checks)",
    "item-remap": "System (item re-mapping)",
    "bulk import": "System (bulk import)",
    system: "System",
  },
};

/** The name of who is recorded, by the credential they used (`admin`, `none`: the page's words). */
export function actorName(record: { who: string; credential: string }, lang: Lang): string {
  if (record.credential === "admin") return ACTORS[lang].admin;
  if (record.credential === "none") return ACTORS[lang].anonymous;
  return record.who;
}

/** Who a report's history names (`by`): the service's workers in the page's words, anyone else by name. */
export function historyActorName(by: string, lang: Lang): string {
  return Object.hasOwn(SYSTEM_ACTORS[lang], by) ? SYSTEM_ACTORS[lang][by]! : by;
}
