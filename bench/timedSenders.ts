/** Runs the senders side by side from now until the last is answered: reports accepted, and accepted a second. */
export async function timedSenders(
  senders: ReadonlyArray<() => Promise<number>>,
): Promise<{ perSecond: number; accepted: number }> {
  const started = performance.now();
  const counts = await Promise.all(senders.map((send) => send()));
  const seconds = (performance.now() - started) / 1000;
  const accepted = counts.reduce((a, b) => a + b, 0);
  return { perSecond: accepted / seconds, accepted };
}
