import { streamCodec, type Event } from "../kit/events.ts";

/*
 * The credentials context's published language: a stream per sending system (`client:<clientId>`)
 * and per report author (`author:<authorId>`). Secrets are never in an event, only their digests.
 */

export type ClientRegistered = Event<"ClientRegistered", { clientId: string; name: string; keyDigest: string }>;
export type ClientRevoked = Event<"ClientRevoked", Record<string, never>>;
/** The client's own item codes → standard codes, whole (each event replaces the map before it). */
export type ClientCodeMapSet = Event<"ClientCodeMapSet", { codeMap: Record<string, string> }>;
/** The events of a `client:` stream. */
export type ClientEvent = ClientRegistered | ClientRevoked | ClientCodeMapSet;

export type AuthorRegistered = Event<"AuthorRegistered", { authorId: string; name: string; tokenDigest: string }>;
/** The events of an `author:` stream. */
export type AuthorEvent = AuthorRegistered;

export type CredentialEvent = ClientEvent | AuthorEvent;

/** A sending system (laboratory or examination system) and its open-API key. */
export const clientStreams = streamCodec("client:");
/** A person or system that authors reports and manages patients through /api. */
export const authorStreams = streamCodec("author:");

// A rule of the events' data: keyDigest and tokenDigest are this digest of the secret, which a reader computes to look a caller up.
export { secretDigest } from "./secrets.ts";
