import type { Session } from "./session.ts";
import type { Alert } from "./types.ts";

export type AlertChange = "raised" | "acknowledged" | "closed";
export type AlertListener = (change: AlertChange, alert: Alert) => void;

export interface AlertHub {
  /** Called with each change told by the service while the page is open; returns an unsubscribe. */
  subscribe(listener: AlertListener): () => void;
  /** Called when the stream (re)connects, when what was missed meanwhile should be read again. */
  onConnected(listener: (live: boolean) => void): () => void;
  close(): void;
}

const RECONNECT_MS = 3000;

/**
 * `GET /api/alerts/stream` read with fetch, not EventSource: EventSource cannot send the
 * Authorization header. A stream that ends or fails is opened again after a pause, and listeners
 * hear `onConnected(true)` so they read the list again (what happened meanwhile is not replayed).
 */
export function openAlertHub(session: Session): AlertHub {
  const listeners = new Set<AlertListener>();
  const connected = new Set<(live: boolean) => void>();
  let abort: AbortController | null = null;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | undefined;

  const tellConnected = (live: boolean) => connected.forEach((listener) => listener(live));

  const dispatch = (block: string) => {
    let change = "";
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) change = line.slice(6).trim();
      else if (line.startsWith("data:")) data += line.slice(5).trim();
    }
    if (!data || (change !== "raised" && change !== "acknowledged" && change !== "closed")) return;
    const alert = JSON.parse(data) as Alert;
    listeners.forEach((listener) => listener(change as AlertChange, alert));
  };

  const run = async () => {
    abort = new AbortController();
    try {
      const response = await fetch("/api/alerts/stream", {
        headers: { accept: "text/event-stream", authorization: `Bearer ${session.token}`, "x-service-tenant": session.tenant },
        credentials: "omit",
        cache: "no-store",
        signal: abort.signal,
      });
      if (!response.ok || !response.body) throw new Error(String(response.status));
      tellConnected(true);
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end: number;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          dispatch(buffer.slice(0, end));
          buffer = buffer.slice(end + 2);
        }
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
    close() {
      closed = true;
      clearTimeout(timer);
      abort?.abort();
      listeners.clear();
      connected.clear();
    },
  };
}
