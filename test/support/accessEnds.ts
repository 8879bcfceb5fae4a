import { expect } from "chai";
import { localDateTime } from "../../db/localDateTime.ts";

/*
 * A long-lived answer read as a client would, and when it ended: the alert stream's events, an
 * export's body. For the tests and the bench of issue #51 (access ends everywhere at once).
 */

export interface OpenStream {
  /** Everything received so far. */
  text(): string;
  /** Resolves with performance.now() at the moment the stream ended (closed by the service, or cut). */
  closed: Promise<number>;
  /** The `ended` event's data, once received. */
  ended(): { reason: string; code: string; error: string } | null;
  /** The `raised` alerts received so far, by externalId. */
  raised(): string[];
  close(): void;
}

/** Opens GET /api/alerts/stream with these headers, and resolves once it listens. */
export async function openAlertStream(url: string, headers: Record<string, string>): Promise<OpenStream> {
  const controller = new AbortController();
  const response = await fetch(`${url}/api/alerts/stream`, { headers, signal: controller.signal });
  expect(response.status, await (response.ok ? "" : response.text())).to.equal(200);
  let text = "";
  const closed = (async () => {
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body!) text += decoder.decode(chunk, { stream: true });
    } catch {
      // cut, or closed by the test
    }
    return performance.now();
  })();
  const events = () =>
    text
      .split("\n\n")
      .map((block) => ({ event: /^event: (.*)$/m.exec(block)?.[1], data: /^data: (.*)$/m.exec(block)?.[1] }))
      .filter((event) => event.event && event.data);
  for (const started = Date.now(); !text.includes(": listening");) {
    if (Date.now() - started > 10_000) throw new Error(`the alert stream did not start: ${text}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return {
    text: () => text,
    closed,
    ended: () => {
      const data = events().find((event) => event.event === "ended")?.data;
      return data ? JSON.parse(data) : null;
    },
    raised: () =>
      events()
        .filter((event) => event.event === "raised")
        .map((event) => JSON.parse(event.data!).externalId),
    close: () => controller.abort(),
  };
}

/** The milliseconds from `since` (performance.now()) until `ended` resolved, or null if it is still open after `waitMs`. */
export async function endedWithin(ended: Promise<number>, since: number, waitMs: number): Promise<number | null> {
  const at = await Promise.race([ended, new Promise<null>((resolve) => setTimeout(() => resolve(null), waitMs))]);
  return at === null ? null : Math.max(0, at - since);
}

/** A critical potassium of a registered patient: raises an alert on its tenant's streams. */
export function criticalReport(externalId: string, patient: { name: string; idCard: string }) {
  return {
    externalId,
    patient,
    collectedAt: localDateTime(new Date(Date.now() - 3_600_000)),
    reportedAt: localDateTime(new Date()),
    status: "FINAL",
    items: [{ itemCode: "K", itemName: "钾", value: 6.9, unit: "mmol/L" }],
  };
}
