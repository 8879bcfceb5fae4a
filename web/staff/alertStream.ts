import { EventSourceParserStream } from "eventsource-parser/stream";
import { credentialsOf, type Session } from "./session.ts";
import type { Alert } from "./types.ts";

/** `updated`: a critical alert took on, or lost, the change of its result (decision 0073). */
export type AlertChange = "raised" | "acknowledged" | "closed" | "updated";
/**
 * What the stream says of an alert that changed: which, of which kind, never whose (decision
 * 0078). The pages read the alert from the list (a recorded look) when they show it.
 */
export type AlertNotice = Pick<Alert, "alertId" | "kind" | "severity">;
/** The stream as it stands: not yet open, open, or lost (and being opened again). */
export type LiveState = "connecting" | "live" | "lost";
export type AlertListener = (change: AlertChange, notice: AlertNotice) => void;

export interface AlertHub {
  /** Called with each change told by the service while the page is open; returns an unsubscribe. */
  subscribe(listener: AlertListener): () => void;
  /** Called when the stream (re)connects, when what was missed meanwhile should be read again, and when it is lost. */
  onConnected(listener: (live: boolean) => void): () => void;
  /**
   * The stream now. A page opened after the stream connected hears no `onConnected` until the
   * stream is lost: it starts from this (the hub lives as long as the session, pages come and go).
   */
  state(): LiveState;
  close(): void;
}

const RECONNECT_MS = 3000;
const CHANGES: ReadonlySet<string> = new Set(["raised", "acknowledged", "closed", "updated"]);

/**
 * `GET /api/alerts/stream?content=notice` read with fetch, not EventSource: EventSource cannot send the
 * Authorization header of a token sign-in. A stream that ends or fails is opened again after a
 * pause, and listeners hear `onConnected(true)` so they read the list again (what happened
 * meanwhile is not replayed).
 */
export function openAlertHub(
  session: Session,
  onEnded: (ended: { code?: string; error?: string }) => void = () => {},
): AlertHub {
  const listeners = new Set<AlertListener>();
  const connected = new Set<(live: boolean) => void>();
  let abort: AbortController | null = null;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let state: LiveState = "connecting";

  const tellConnected = (live: boolean) => {
    state = live ? "live" : "lost";
    connected.forEach((listener) => listener(live));
  };

  const run = async () => {
    abort = new AbortController();
    try {
      const own = credentialsOf(session, "GET");
      // Notices only: the badge and the lists re-read what changed, so the stream that every page
      // holds open shows nobody and is no one's look at a patient (decision 0078).
      const response = await fetch("/api/alerts/stream?content=notice", {
        headers: { accept: "text/event-stream", ...own.headers },
        credentials: own.credentials,
        cache: "no-store",
        signal: abort.signal,
      });
      if (!response.ok || !response.body) throw new Error(String(response.status));
      tellConnected(true);
      const reader = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream())
        .getReader();
      for (;;) {
        const { value: message, done } = await reader.read();
        if (done) break;
        // The credential ended (revoked, signed out, expired): the service closes the stream; no reconnecting.
        if (message.event === "ended") {
          closed = true;
          onEnded(JSON.parse(message.data) as { code?: string; error?: string });
          return;
        }
        if (!message.event || !CHANGES.has(message.event)) continue;
        const notice = JSON.parse(message.data) as AlertNotice;
        listeners.forEach((listener) => listener(message.event as AlertChange, notice));
      }
    } catch {
      // Lost, refused or aborted: tried again below unless closed.
    }
    if (closed) return;
    tellConnected(false);
    timer = setTimeout(() => void run(), RECONNECT_MS);
  };
  void run();

  return {
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onConnected(listener) {
      connected.add(listener);
      return () => connected.delete(listener);
    },
    state: () => state,
    close() {
      closed = true;
      clearTimeout(timer);
      abort?.abort();
      listeners.clear();
      connected.clear();
    },
  };
}
