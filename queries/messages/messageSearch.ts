import type { TenantReader } from "../../db/tenantScope.ts";

/** What a search of received messages filters by (contract G.5); every filter is optional. */
export interface MessageFilter {
  channel?: string;
  /** A client's id or name. */
  client?: string;
  outcome?: string;
  externalId?: string;
  /** The keyed hash of a national id or HIS id (src/messages/messageRecorder.ts, patientKey). */
  patientKey?: string;
  /** Received at or after. */
  from?: Date;
  /** Received before. */
  before?: Date;
}

/** Where a page starts: after the last message of the page before (newest first). */
export interface MessageKey {
  receivedAt: string;
  messageId: string;
}

export interface KeptMessageRow {
  messageId: string;
  receivedAt: Date;
  channel: string;
  client: { clientId: string; name: string };
  bytes: number;
  outcome: string;
  externalIds: string[];
  errors: unknown[];
  answer: unknown;
  truncated: boolean;
}

const COLUMNS = `message_id, received_at, channel, client_id, client_name, bytes, outcome, external_ids, errors, answer, truncated`;

interface Row {
  message_id: string;
  received_at: Date;
  channel: string;
  client_id: string;
  client_name: string;
  bytes: number;
  outcome: string;
  external_ids: string[];
  errors: unknown[];
  answer: unknown;
  truncated: boolean;
  body?: Buffer | null;
}

function messageOf(row: Row): KeptMessageRow {
  return {
    messageId: row.message_id,
    receivedAt: row.received_at,
    channel: row.channel,
    client: { clientId: row.client_id, name: row.client_name },
    bytes: row.bytes,
    outcome: row.outcome,
    externalIds: row.external_ids,
    errors: row.errors,
    answer: row.answer,
    truncated: row.truncated,
  };
}

/**
 * The tenant's messages that pass the filter, newest first, `limit` + 1 of them (the one past the
 * page says another follows). Only the filters given are written into the statement, so that each
 * search is planned for its own index (an externalId or patient id by its GIN index, the rest by
 * time).
 */
export async function searchMessages(
  reader: TenantReader,
  filter: MessageFilter,
  after: MessageKey | null,
  limit: number,
): Promise<KeptMessageRow[]> {
  const params: unknown[] = [];
  const where: string[] = [];
  const param = (value: unknown) => `$${params.push(value)}`;
  if (filter.channel) where.push(`channel = ${param(filter.channel)}`);
  if (filter.client) {
    const client = param(filter.client);
    where.push(`(client_id = ${client} or client_name = ${client})`);
  }
  if (filter.outcome) where.push(`outcome = ${param(filter.outcome)}`);
  if (filter.externalId) where.push(`external_ids @> array[${param(filter.externalId)}::text]`);
  if (filter.patientKey) where.push(`patient_keys @> array[${param(filter.patientKey)}::text]`);
  if (filter.from) where.push(`received_at >= ${param(filter.from)}`);
  if (filter.before) where.push(`received_at < ${param(filter.before)}`);
  if (after)
    where.push(
      `(received_at, message_id) < (${param(after.receivedAt)}::timestamptz, ${param(after.messageId)}::uuid)`,
    );
  const { rows } = await reader.query<Row>(
    `select ${COLUMNS} from read.messages ${where.length > 0 ? `where ${where.join(" and ")}` : ""}
     order by received_at desc, message_id desc limit ${param(limit + 1)}`,
    params,
  );
  return rows.map(messageOf);
}

/** One message with its body (gzip-compressed as kept; null once dropped), or null when the tenant has none of that id. */
export async function messageById(
  reader: TenantReader,
  messageId: string,
): Promise<(KeptMessageRow & { body: Buffer | null }) | null> {
  const { rows } = await reader.query<Row>(`select ${COLUMNS}, body from read.messages where message_id = $1`, [
    messageId,
  ]);
  const row = rows[0];
  return row ? { ...messageOf(row), body: row.body ?? null } : null;
}
