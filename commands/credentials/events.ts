import { streamCodec, type Event } from "../kit/events.ts";

/*
 * The credentials context's published language: a stream per sending system (`client:<clientId>`)
 * and per report author (`author:<authorId>`). Secrets are never in an event, only their digests:
 * `hmac:<hex>` (keyed, since contract E.3) or a plain SHA-256 hex in events written before.
 * Times are ISO strings, decided when the command ran, so a replay reads the same moments.
 */

export type ClientRegistered = Event<
  "ClientRegistered",
  {
    clientId: string;
    name: string;
    keyDigest: string;
    /** When the client stops working (contract E.3 expiresInDays); absent: never (all events before E.3). */
    expiresAt?: string;
  }
>;
export type ClientRevoked = Event<"ClientRevoked", Record<string, never>>;
/** The client's own item codes → standard codes, whole (each event replaces the map before it). */
export type ClientCodeMapSet = Event<"ClientCodeMapSet", { codeMap: Record<string, string> }>;
/** A new key; the client's keys issued before it work until `formerKeysValidUntil` (an overlap, possibly none). */
export type ClientKeyRotated = Event<"ClientKeyRotated", { keyDigest: string; formerKeysValidUntil: string }>;
/** The events of a `client:` stream. */
export type ClientEvent = ClientRegistered | ClientRevoked | ClientCodeMapSet | ClientKeyRotated;

export type AuthorRegistered = Event<
  "AuthorRegistered",
  {
    authorId: string;
    name: string;
    tokenDigest: string;
    /** When the author's tokens stop working; absent: never (all events before E.3). */
    expiresAt?: string;
    /** What the author's tokens may do (contract E.2); absent: ["author"] (all events before E.2). */
    roles?: string[];
    /** The wards whose patients the tokens may see; absent: every ward. */
    wards?: string[];
  }
>;
export type AuthorRevoked = Event<"AuthorRevoked", Record<string, never>>;
/** A new token; the author's tokens issued before it work until `formerTokensValidUntil`. */
export type AuthorTokenRotated = Event<"AuthorTokenRotated", { tokenDigest: string; formerTokensValidUntil: string }>;
/** The events of an `author:` stream. */
export type AuthorEvent = AuthorRegistered | AuthorRevoked | AuthorTokenRotated;

export type CredentialEvent = ClientEvent | AuthorEvent;

/** A sending system (laboratory or examination system) and its open-API key. */
export const clientStreams = streamCodec("client:");
/** A person or system that authors reports and manages patients through /api. */
export const authorStreams = streamCodec("author:");
