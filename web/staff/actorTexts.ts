/**
 * Who did something, as a page names them (issue #54): a person or system by the name of their
 * credential, as stored; the operator's ADMIN_TOKEN and a viewer without a credential by the
 * page's words, not by the service's "admin" and "anonymous".
 */
import type { Lang } from "../types.ts";

const ACTORS: Record<Lang, { admin: string; anonymous: string }> = {
  zh: { admin: "系统管理员（管理令牌）", anonymous: "未登录的查看者" },
  en: { admin: "Administrator (admin token)", anonymous: "Viewer without sign-in" },
};

/** The name of who is recorded, by the credential they used (`admin`, `none`: the page's words). */
export function actorName(record: { who: string; credential: string }, lang: Lang): string {
  if (record.credential === "admin") return ACTORS[lang].admin;
  if (record.credential === "none") return ACTORS[lang].anonymous;
  return record.who;
}
