import type { StaffRole } from "./session.ts";

/**
 * Personal access tokens (people and systems with a role and wards; "author tokens" in the API) and
 * laboratory keys (the open API's senders).
 */
export type CredentialKind = "author" | "client";
/** Where a credential stands: it works, its expiresInDays ran out, or it was revoked. */
export type CredentialState = "active" | "expired" | "revoked";

/** The words of the Credentials page (contract E.2, E.3). */
export interface CredentialsTexts {
  authorTokens: string;
  authorTokensIntro: string;
  labKeys: string;
  labKeysIntro: string;
  labKeysWardLimited: (wards: string) => string;
  credentialCount: (kind: CredentialKind, total: number, active: number) => string;
  noCredentials: Record<CredentialKind, string>;
  credColName: string;
  credColRolesWards: string;
  credColCreated: string;
  credColExpires: string;
  credColLastUsed: string;
  credColState: string;
  credentialId: (shortId: string) => string;
  credentialStates: Record<CredentialState, string>;
  neverUsed: string;
  noExpiry: string;
  everyWard: string;
  revokedOn: (time: string) => string;
  /** After a rotation: the former secret keeps working until the overlap ends. */
  formerWorksUntil: (kind: CredentialKind, time: string) => string;

  newCredential: Record<CredentialKind, string>;
  newCredentialTitle: Record<CredentialKind, string>;
  credName: string;
  credNameHint: Record<CredentialKind, string>;
  rolesLegend: string;
  /** A role as the new-token dialog offers it: whom the token is for. */
  roleChoices: Record<StaffRole, string>;
  roleHints: Record<StaffRole, string>;
  rolesMissing: string;
  wards: string;
  wardsOptional: string;
  wardsHint: string;
  wardsHintLimited: (wards: string) => string;
  wardsRequired: (wards: string) => string;
  wardsOutside: (outside: string, wards: string) => string;
  expiresInDays: string;
  expiresInDaysHint: string;
  expiresInDaysInvalid: string;
  create: string;
  creating: string;
  created: (kind: CredentialKind, name: string) => string;

  rotate: string;
  rotateFor: (kind: CredentialKind, name: string) => string;
  rotateIntro: (kind: CredentialKind) => string;
  overlapHours: string;
  overlapHoursHint: string;
  overlapHoursInvalid: string;
  rotateButton: string;
  rotating: string;
  rotated: (kind: CredentialKind, name: string, overlapHours: number) => string;

  revoke: string;
  revokeFor: (kind: CredentialKind, name: string) => string;
  revokeIntro: (kind: CredentialKind, name: string) => string;
  revokeButton: string;
  revoking: string;
  revoked: (kind: CredentialKind, name: string) => string;

  newSecret: (kind: CredentialKind, name: string) => string;
  secretOnce: (kind: CredentialKind) => string;
  copy: string;
  copySecret: (kind: CredentialKind) => string;
  copied: string;
  copyFailed: string;
  secretDone: string;
}

const zhSecret: Record<CredentialKind, string> = { author: "令牌", client: "密钥" };

export const credentialsZh: CredentialsTexts = {
  authorTokens: "个人访问令牌",
  authorTokensIntro:
    "每位用令牌登录工作台的人员（以及调用 /api 的系统）各有一个。角色决定能做什么，病区决定能看到哪些患者。",
  labKeys: "检验科接入密钥",
  labKeysIntro: "检验、检查系统通过开放接口（/open/v1）推送报告所用的密钥。一个密钥适用于全部病区。",
  labKeysWardLimited: (wards) =>
    `您是病区 ${wards} 的管理员：检验科密钥适用于全部病区，只能由全部病区的管理员创建、轮换或吊销。`,
  credentialCount: (kind, total, active) => `共 ${total} 个${zhSecret[kind]}，${active} 个有效`,
  noCredentials: { author: "还没有个人访问令牌。", client: "还没有检验科密钥。" },
  credColName: "名称",
  credColRolesWards: "角色与病区",
  credColCreated: "创建时间",
  credColExpires: "到期时间",
  credColLastUsed: "最近使用",
  credColState: "状态",
  credentialId: (shortId) => `编号 ${shortId}`,
  credentialStates: { active: "有效", expired: "已过期", revoked: "已吊销" },
  neverUsed: "从未使用",
  noExpiry: "永不过期",
  everyWard: "全部病区",
  revokedOn: (time) => `吊销于 ${time}`,
  formerWorksUntil: (kind, time) => `已轮换：原${zhSecret[kind]}在 ${time} 前仍可使用`,

  newCredential: { author: "新建个人访问令牌…", client: "新建检验科密钥…" },
  newCredentialTitle: { author: "新建个人访问令牌", client: "新建检验科密钥" },
  credName: "名称",
  credNameHint: {
    author: "使用者的姓名（或系统名称），会作为“操作者”记入其所做的每一项操作。",
    client: "发送系统的名称，例如“中心检验科 LIS”。",
  },
  rolesLegend: "给谁使用",
  roleChoices: {
    clinician: "护士或医生（临床）",
    author: "报表作者",
    admin: "管理员",
    viewer: "只查看报表",
    researcher: "科研人员",
    integrator: "接口工程师",
  },
  roleHints: {
    admin: "本机构的一切，包括本页的凭据。",
    author: "编写和发布报表，以及临床角色的一切。",
    clinician: "登录后先看到本人病区的结果提醒；还有患者、检验趋势、待认领报告和报告历史。请在下面填写她的病区。",
    viewer: "只能查看报表。",
    researcher: "只能查看和导出科研数据源的报表（无姓名，患者以假名代替）。",
    integrator: "查找收到的每条消息（推送、HL7、FHIR）及其应答；身份证号部分隐藏。",
  },
  rolesMissing: "请至少选择一个角色。",
  wards: "病区",
  wardsOptional: "病区（可选）",
  wardsHint: "她能看到哪些病区的患者，用逗号或空格分隔，例如 3A 3B。留空则可看到全部病区的患者。",
  wardsHintLimited: (wards) => `用逗号或空格分隔；必须在您的病区 ${wards} 之内。`,
  wardsRequired: (wards) => `请填写病区：您只能创建病区 ${wards} 之内的令牌。`,
  wardsOutside: (outside, wards) => `病区 ${outside} 不在您的病区 ${wards} 之内。`,
  expiresInDays: "有效天数（可选）",
  expiresInDaysHint: "到期后该凭据不再可用，可填小数（0.5 即 12 小时）。留空则永不过期。",
  expiresInDaysInvalid: "有效天数须为大于 0 的数字，或留空表示永不过期。",
  create: "创建",
  creating: "正在创建…",
  created: (kind, name) => `已为 ${name} 创建${kind === "author" ? "个人访问令牌" : "检验科密钥"}。`,

  rotate: "轮换…",
  rotateFor: (kind, name) => `轮换 ${name} 的${zhSecret[kind]}`,
  rotateIntro: (kind) =>
    `将生成一个新${zhSecret[kind]}。现有的${zhSecret[kind]}在下面的小时数内仍然有效，使用方可以从容切换；填 0 则立即停用。`,
  overlapHours: "旧凭据继续有效的小时数",
  overlapHoursHint: "0 至 720，可填小数；默认 24。",
  overlapHoursInvalid: "小时数须为 0 至 720 之间的数字。",
  rotateButton: "轮换",
  rotating: "正在轮换…",
  rotated: (kind, name, hours) =>
    `已轮换 ${name} 的${zhSecret[kind]}：${hours === 0 ? `旧${zhSecret[kind]}已立即停用。` : `旧${zhSecret[kind]}在 ${hours} 小时内仍可使用。`}`,

  revoke: "吊销…",
  revokeFor: (kind, name) => `吊销 ${name} 的${zhSecret[kind]}`,
  revokeIntro: (kind, name) =>
    `吊销后，${name} 的${zhSecret[kind]}从下一次调用起即被拒绝。此操作无法撤销；如仍需要，请新建一个。`,
  revokeButton: "吊销",
  revoking: "正在吊销…",
  revoked: (kind, name) => `${name} 的${zhSecret[kind]}已吊销。`,

  newSecret: (kind, name) => `${name} 的新${zhSecret[kind]}`,
  secretOnce: (kind) => `请立即复制并妥善交给使用方：关闭此窗口后，该${zhSecret[kind]}不会再显示，服务只保存其摘要。`,
  copy: "复制",
  copySecret: (kind) => `复制新${zhSecret[kind]}`,
  copied: "已复制到剪贴板。",
  copyFailed: "无法自动复制：请选中上面的文字后手动复制。",
  secretDone: "我已复制，关闭",
};

const enSecret: Record<CredentialKind, string> = { author: "token", client: "key" };

export const credentialsEn: CredentialsTexts = {
  authorTokens: "Personal access tokens",
  authorTokensIntro:
    "One for each person who signs in to these pages with a token (and each system calling /api): its role says what they may do, its wards whose patients they see.",
  labKeys: "Laboratory keys",
  labKeysIntro:
    "The keys laboratory and examination systems push reports with (the open API, /open/v1). A key serves every ward.",
  labKeysWardLimited: (wards) =>
    `You administer wards ${wards}: a laboratory's key serves every ward, so only an administrator of every ward makes, rotates or revokes one.`,
  credentialCount: (kind, total, active) => `${total} ${enSecret[kind]}${total === 1 ? "" : "s"}, ${active} active`,
  noCredentials: { author: "There are no personal access tokens yet.", client: "There are no laboratory keys yet." },
  credColName: "Name",
  credColRolesWards: "Roles and wards",
  credColCreated: "Created",
  credColExpires: "Expires",
  credColLastUsed: "Last used",
  credColState: "State",
  credentialId: (shortId) => `id ${shortId}`,
  credentialStates: { active: "Active", expired: "Expired", revoked: "Revoked" },
  neverUsed: "never",
  noExpiry: "does not expire",
  everyWard: "every ward",
  revokedOn: (time) => `revoked ${time}`,
  formerWorksUntil: (kind, time) => `Rotated: the former ${enSecret[kind]} still works until ${time}`,

  newCredential: { author: "New personal access token…", client: "New laboratory key…" },
  newCredentialTitle: { author: "New personal access token", client: "New laboratory key" },
  credName: "Name",
  credNameHint: {
    author: "The person's or system's name: it is recorded as 'who' on everything done with the token.",
    client: "The sending system's name, e.g. 'Central lab LIS'.",
  },
  rolesLegend: "Who is it for?",
  roleChoices: {
    clinician: "A nurse or doctor (clinician)",
    author: "A report author",
    admin: "An administrator",
    viewer: "Someone who only views reports",
    researcher: "A researcher",
    integrator: "An integration engineer",
  },
  roleHints: {
    admin: "Everything of this tenant, these credentials included.",
    author: "Writes and publishes reports, and all a clinician may.",
    clinician:
      "Opens on the result alerts of her wards; also patients, results, unmatched reports and report history. Give her wards below.",
    viewer: "Views reports only.",
    researcher: "Views and exports reports of the research data source only (no names; patients under pseudonyms).",
    integrator: "Finds every received message (pushes, HL7, FHIR) and its answer; id cards partly hidden.",
  },
  rolesMissing: "Choose at least one role.",
  wards: "Wards",
  wardsOptional: "Wards (optional)",
  wardsHint:
    "The wards whose patients she sees, separated by commas or spaces, e.g. 3A 3B. Leave it empty for every ward.",
  wardsHintLimited: (wards) => `Separated by commas or spaces; within your wards ${wards}.`,
  wardsRequired: (wards) => `Name the wards: you make tokens within your wards ${wards} only.`,
  wardsOutside: (outside, wards) => `Ward ${outside} is not one of your wards ${wards}.`,
  expiresInDays: "Expires in days (optional)",
  expiresInDaysHint:
    "After it the credential stops working; fractions allowed (0.5 is 12 hours). Leave it empty for one that does not expire.",
  expiresInDaysInvalid: "Expires in days is a number greater than 0, or empty for a credential that does not expire.",
  create: "Create",
  creating: "Creating…",
  created: (kind, name) =>
    `${kind === "author" ? "A personal access token" : "A laboratory key"} was created for ${name}.`,

  rotate: "Rotate…",
  rotateFor: (kind, name) => `Rotate the ${enSecret[kind]} of ${name}`,
  rotateIntro: (kind) =>
    `A new ${enSecret[kind]} is made. The current one keeps working for the hours below, so whoever uses it can switch without a gap; 0 stops it at once.`,
  overlapHours: "Hours the current one keeps working",
  overlapHoursHint: "0 to 720, fractions allowed; 24 if unchanged.",
  overlapHoursInvalid: "The hours are a number from 0 to 720.",
  rotateButton: "Rotate",
  rotating: "Rotating…",
  rotated: (kind, name, hours) =>
    `The ${enSecret[kind]} of ${name} was rotated: the former one ${hours === 0 ? "stopped at once." : `keeps working for ${hours} hour${hours === 1 ? "" : "s"}.`}`,

  revoke: "Revoke…",
  revokeFor: (kind, name) => `Revoke the ${enSecret[kind]} of ${name}`,
  revokeIntro: (kind, name) =>
    `Once revoked, the ${enSecret[kind]} of ${name} is refused from the next call on. This cannot be undone; make a new one if it is still needed.`,
  revokeButton: "Revoke",
  revoking: "Revoking…",
  revoked: (kind, name) => `The ${enSecret[kind]} of ${name} was revoked.`,

  newSecret: (kind, name) => `New ${enSecret[kind]} of ${name}`,
  secretOnce: (kind) =>
    `Copy it now and hand it over safely: once this window closes the ${enSecret[kind]} is not shown again; the service keeps only a digest of it.`,
  copy: "Copy",
  copySecret: (kind) => `Copy the new ${enSecret[kind]}`,
  copied: "Copied to the clipboard.",
  copyFailed: "It could not be copied for you: select the text above and copy it.",
  secretDone: "I have copied it; close",
};
