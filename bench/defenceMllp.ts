import net from "node:net";
import { oruR01, withSecurity } from "../test/support/hl7Messages.ts";
import { closedWithin, connectRaw, mllpFrame } from "../test/support/mllpPeer.ts";
import { benchHeaders, startBenchService } from "./benchService.ts";
import { result, type BenchResult } from "./results.ts";

const IDLE_SOCKETS = 1000;
/** How long the laboratory is given to get its ACK on one connection before it connects again. */
const ATTEMPT_MS = 1000;
const GIVE_UP_MS = 180_000;

/**
 * Issue #52, finding 5: 1,000 sockets held open from one address (the laboratory's own), none
 * sending a byte, then a laboratory connects and sends a message with its key, connecting again
 * whenever its connection is closed or silent for a second, as a laboratory system does: the
 * seconds from its first connection to its ACK (target 0; before #52, about 60: the idle timeout
 * of the 200 connections that filled the cap).
 */
export async function mllpIdleLockout(): Promise<BenchResult[]> {
  const service = await startBenchService({ HL7_MLLP_PORT: "0" });
  const idle: net.Socket[] = [];
  try {
    const created = await fetch(`${service.url}/api/admin/clients`, {
      method: "POST",
      headers: benchHeaders,
      body: JSON.stringify({ name: "mllp lab", tenant: "bench" }),
    });
    const { key } = (await created.json()) as { key: string };
    const frame = (controlId: string) =>
      mllpFrame(withSecurity(oruR01({ controlId, externalId: `LOCKOUT-${controlId}` }), key));
    const ackOnce = async (controlId: string): Promise<boolean> => {
      const lab = await connectRaw(service.mllpPort!);
      try {
        lab.socket.write(frame(controlId));
        const deadline = Date.now() + ATTEMPT_MS;
        while (lab.acks.length === 0 && Date.now() < deadline && (await closedWithin(lab, 10)) === null);
        return lab.acks[0] === `AA ${controlId}`;
      } finally {
        lab.socket.destroy();
      }
    };
    // Unloaded, after a first message that pays for the process's warm-up: what an ACK takes here.
    if (!(await ackOnce("WARM-UP"))) throw new Error("the laboratory got no ACK on an idle listener");
    const unloadedStart = performance.now();
    if (!(await ackOnce("UNLOADED"))) throw new Error("the laboratory got no ACK on an idle listener");
    const unloadedMs = performance.now() - unloadedStart;

    for (let i = 0; i < IDLE_SOCKETS; i++) {
      const socket = net.connect(service.mllpPort!, "127.0.0.1");
      socket.on("error", () => {});
      await new Promise((resolve) => socket.once("connect", resolve).once("close", resolve));
      idle.push(socket);
    }
    const heldOpen = idle.filter((socket) => !socket.destroyed && socket.readyState === "open").length;
    const started = performance.now();
    let attempts = 0;
    while (!(await ackOnce(`LAB-${++attempts}`))) {
      if (performance.now() - started > GIVE_UP_MS)
        throw new Error(`the laboratory got no ACK within ${GIVE_UP_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    return [
      result(
        "defence.mllp_idle_lockout_s",
        seconds,
        "s",
        undefined,
        `${IDLE_SOCKETS} sockets opened from 127.0.0.1 without sending a byte (${heldOpen} still open when the ` +
          "laboratory came), then a laboratory from the same address connects and sends one message with its " +
          `key, again after each connection closed or silent for ${ATTEMPT_MS / 1000} s: ${attempts} ` +
          `connection(s), ${(seconds * 1000).toFixed(1)} ms to its ACK (on an idle listener ` +
          `${unloadedMs.toFixed(1)} ms); target 0`,
      ),
    ];
  } finally {
    for (const socket of idle) socket.destroy();
    await service.stop();
  }
}
