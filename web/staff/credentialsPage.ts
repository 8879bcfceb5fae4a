import {
  CREDENTIAL_PATHS,
  createDialog,
  revokeDialog,
  rotateDialog,
  type Credential,
  type CredentialChanges,
} from "./credentialDialogs.ts";
import type { CredentialKind, CredentialState } from "./credentialsTexts.ts";
import { el } from "./dom.ts";
import { loader, pageFrame, type PageContext } from "./page.ts";
import { cardTable } from "./tables.ts";
import type { AuthorListEntry, ClientListEntry } from "./types.ts";

/**
 * The tenant's credentials (role admin; contract E.2, E.3): its author tokens and its laboratory
 * keys, each with when it was made, expires and was last used, and its state; a new one, a
 * rotation (its secret shown once) and a revocation. An administrator limited to some wards
 * changes only tokens within those wards and no laboratory key: those actions are left out here
 * (the service refuses them anyway, src/credentials/tenantAdministration.ts).
 */
export function credentialsPage(ctx: PageContext): HTMLElement {
  const { texts } = ctx;
  const changes: CredentialChanges = {
    async changed(kind, id, text) {
      await Promise.all([sections.author.reload(), sections.client.reload()]);
      ctx.announce(text);
      changes.refocus(kind, id);
    },
    refocus(kind, id) {
      const focused = document.activeElement;
      if (focused && focused !== document.body && focused.isConnected) return;
      const section = sections[kind].element;
      const row = id === null ? null : section.querySelector<HTMLElement>(`tr[data-id="${CSS.escape(id)}"] button`);
      (row ?? section.querySelector<HTMLElement>("h2"))?.focus();
    },
  };
  const sections = {
    author: credentialSection(ctx, "author", changes),
    client: credentialSection(ctx, "client", changes),
  };
  void sections.author.reload();
  void sections.client.reload();
  return pageFrame(
    "credentials",
    texts.credentials,
    texts.credentialsIntro,
    sections.author.element,
    sections.client.element,
  );
}

/** One kind's section: heading, what it is, the New button when the caller may make one, and the list. */
function credentialSection(
  ctx: PageContext,
  kind: CredentialKind,
  changes: CredentialChanges,
): { element: HTMLElement; reload: () => Promise<void> } {
  const { texts } = ctx;
  const limited = ctx.session.caller.wards;
  const headingId = `credentials-${kind}-heading`;
  const count = el("p", { class: "count muted" });
  const box = el("div", { class: "page-body" });
  const reload = loader(box, texts, async () => {
    const list = await credentialsOf(ctx, kind);
    count.textContent = texts.credentialCount(
      kind,
      list.length,
      list.filter((credential) => stateOf(credential) === "active").length,
    );
    return list.length === 0
      ? el("p", { class: "empty" }, texts.noCredentials[kind])
      : credentialTable(ctx, kind, list, changes);
  });
  const mayCreate = kind === "author" || limited === null;
  const element = el(
    "section",
    { class: `credential-section credentials-${kind}`, "data-kind": kind, "aria-labelledby": headingId },
    el(
      "div",
      { class: "section-head" },
      el("h2", { id: headingId, tabindex: "-1" }, kind === "author" ? texts.authorTokens : texts.labKeys),
      mayCreate
        ? el(
            "button",
            { type: "button", class: "primary new-credential", onclick: () => createDialog(ctx, kind, changes) },
            texts.newCredential[kind],
          )
        : null,
    ),
    el("p", { class: "hint section-intro" }, kind === "author" ? texts.authorTokensIntro : texts.labKeysIntro),
    mayCreate ? null : el("p", { class: "ward-limited" }, texts.labKeysWardLimited(limited!.join(", "))),
    count,
    box,
  );
  return { element, reload };
}

/** A kind's credentials, newest first (the service lists them oldest first). */
async function credentialsOf(ctx: PageContext, kind: CredentialKind): Promise<Credential[]> {
  const listed = ({
    name,
    createdAt,
    expiresAt,
    lastUsedAt,
    revokedAt,
    formerValidUntil,
  }: AuthorListEntry | ClientListEntry) => ({
    name,
    createdAt,
    expiresAt,
    lastUsedAt,
    revokedAt,
    formerValidUntil,
  });
  const list: Credential[] =
    kind === "author"
      ? (await ctx.api.all<AuthorListEntry>(CREDENTIAL_PATHS.author)).map((author) => ({
          kind,
          id: author.authorId,
          ...listed(author),
          roles: author.roles,
          wards: author.wards,
        }))
      : (await ctx.api.all<ClientListEntry>(CREDENTIAL_PATHS.client)).map((client) => ({
          kind,
          id: client.clientId,
          ...listed(client),
          roles: null,
          wards: null,
        }));
  return list.reverse();
}

function stateOf(credential: Credential, now = Date.now()): CredentialState {
  if (credential.revokedAt !== null) return "revoked";
  if (credential.expiresAt !== null && Date.parse(credential.expiresAt) <= now) return "expired";
  return "active";
}

/** Whether the caller may revoke or rotate it: as the service decides (tenantAdministration.ts), so no button leads to a 403. */
function mayChange(callerWards: readonly string[] | null, credential: Credential): boolean {
  if (callerWards === null) return true;
  if (credential.kind === "client") return false;
  const wards = credential.wards ?? [];
  return wards.length > 0 && wards.every((ward) => callerWards.includes(ward));
}

/** The service's UTC instant in the browser's local time, `2026-03-01 11:00` like the other pages' times. */
function localInstant(instant: string): string {
  const at = new Date(instant);
  const two = (n: number) => String(n).padStart(2, "0");
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}`;
}

const shownTime = (instant: string) => el("time", { datetime: instant }, localInstant(instant));

function credentialTable(
  ctx: PageContext,
  kind: CredentialKind,
  list: Credential[],
  changes: CredentialChanges,
): HTMLElement {
  const { texts } = ctx;
  const columns = [
    texts.credColName,
    ...(kind === "author" ? [texts.credColRolesWards] : []),
    texts.credColCreated,
    texts.credColExpires,
    texts.credColLastUsed,
    texts.credColState,
    texts.colActions,
  ];
  return cardTable(
    el(
      "table",
      { class: `data credentials credentials-${kind}-table` },
      el("caption", { class: "visually-hidden" }, kind === "author" ? texts.authorTokens : texts.labKeys),
      el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", { scope: "col" }, c)))),
      el("tbody", {}, ...list.map((credential) => credentialRow(ctx, credential, changes))),
    ),
  );
}

function credentialRow(ctx: PageContext, credential: Credential, changes: CredentialChanges): HTMLTableRowElement {
  const { texts } = ctx;
  const { kind, name } = credential;
  const state = stateOf(credential);
  const actions = el("td", { class: "actions" });
  if (state === "active" && mayChange(ctx.session.caller.wards, credential)) {
    actions.append(
      el(
        "button",
        {
          type: "button",
          class: "rotate",
          "aria-label": texts.rotateFor(kind, name),
          onclick: () => rotateDialog(ctx, credential, changes),
        },
        texts.rotate,
      ),
      el(
        "button",
        {
          type: "button",
          class: "revoke",
          "aria-label": texts.revokeFor(kind, name),
          onclick: () => revokeDialog(ctx, credential, changes),
        },
        texts.revoke,
      ),
    );
  }
  const roles = (credential.roles ?? [])
    .map((role) => (role in texts.roleNames ? texts.roleNames[role as keyof typeof texts.roleNames] : role))
    .join(", ");
  return el(
    "tr",
    { "data-id": credential.id, "data-state": state, class: state === "active" ? null : "inactive" },
    el("th", { scope: "row" }, name, el("span", { class: "sub muted" }, texts.credentialId(credential.id.slice(0, 8)))),
    kind === "author"
      ? el(
          "td",
          { class: "grants" },
          roles,
          el(
            "span",
            { class: "sub muted" },
            credential.wards ? texts.wardsOf(credential.wards.join(", ")) : texts.everyWard,
          ),
        )
      : null,
    el("td", { class: "created" }, shownTime(credential.createdAt)),
    el(
      "td",
      { class: "expires" },
      credential.expiresAt ? shownTime(credential.expiresAt) : el("span", { class: "muted" }, texts.noExpiry),
    ),
    el(
      "td",
      { class: "last-used" },
      credential.lastUsedAt ? shownTime(credential.lastUsedAt) : el("span", { class: "muted" }, texts.neverUsed),
    ),
    el(
      "td",
      { class: "state" },
      el("span", { class: `credential-state state-${state}` }, texts.credentialStates[state]),
      credential.revokedAt
        ? el("span", { class: "sub muted" }, texts.revokedOn(localInstant(credential.revokedAt)))
        : null,
      // A rotation's overlap, while it lasts: the former secret still works, and until when (issue #54).
      state === "active" && credential.formerValidUntil
        ? el(
            "span",
            { class: "sub former-works" },
            texts.formerWorksUntil(kind, localInstant(credential.formerValidUntil)),
          )
        : null,
    ),
    actions,
  );
}
