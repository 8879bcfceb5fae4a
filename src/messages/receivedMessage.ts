/** Where a message came in (contract G.5). */
export const MESSAGE_CHANNELS = ["open-v1", "hl7-http", "hl7-mllp", "fhir", "bulk"] as const;
export type MessageChannel = (typeof MESSAGE_CHANNELS)[number];

export const MESSAGE_OUTCOMES = ["accepted", "partial", "refused"] as const;
/** `refused`: nothing of it stored; `partial`: some reports stored, some refused. */
export type MessageOutcome = (typeof MESSAGE_OUTCOMES)[number];

/** The body kept of a message: up to 1 MiB; a larger one's first 1 MiB, marked truncated. */
export const MAX_KEPT_BODY_BYTES = 1024 * 1024;

/** One error of a message as its search shows it: the report it concerns (when known), where and what. */
export interface MessageError {
  externalId?: string | null;
  field: string;
  message: string;
}

/**
 * A message as its answer left it, handed to the recorder before the answer is sent. What it
 * carried (its externalIds, patient ids, errors) is read from `body` and `answer` by the writer,
 * off the answer's path (messageFacts.ts).
 */
export interface ReceivedMessage {
  messageId: string;
  tenant: string;
  receivedAt: Date;
  channel: MessageChannel;
  clientId: string;
  clientName: string;
  /** The body as received (an MLLP frame's message, an HTTP request's body); empty when it could not be read. */
  body: Buffer;
  /** The body's whole length, which `body` may hold only the start of. */
  bytes: number;
  outcome: MessageOutcome;
  /** What the sender was told: the envelope, the ACK text, the FHIR Bundle or OperationOutcome. */
  answer: unknown;
}

/** The outcome of a push from what became of each of its reports; a push refused whole has none. */
export function outcomeOfReports(stored: number, refused: number): MessageOutcome {
  if (stored === 0) return "refused";
  return refused === 0 ? "accepted" : "partial";
}

/** The start of a body that is kept: a copy, so that the rest of a large body is not held with it. */
export function keptBody(body: Buffer): Buffer {
  return body.length > MAX_KEPT_BODY_BYTES ? Buffer.from(body.subarray(0, MAX_KEPT_BODY_BYTES)) : body;
}

/** Where a channel hands its messages (the recorder, messageRecorder.ts). */
export interface MessageKeeper {
  keep(message: ReceivedMessage): Promise<void>;
}
