import type { Middleware } from "koa";
import type { CallerAddresses } from "../../http/callerAddress.ts";
import { HttpError } from "../../http/httpError.ts";

/** What the export routes are given besides the report routes' dependencies. */
export interface ExportLimits {
  /** The count of exports without a credential per address (one for both formats). */
  exportsPerAddress: Middleware;
}

/** Seconds a caller refused here should wait: an export usually takes a few. */
const RETRY_AFTER_SECONDS = "5";

/**
 * At most `perAddress` exports (xlsx and docx together) made without a credential run at once
 * from one address (CallerAddresses); one more answers 429 with Retry-After. Under
 * VIEWING_AUTH=proxy the viewing calls need no credential, so without this one client could ask
 * for as many exports as it liked, of any tenant, and hold every one of their turns (issue #52,
 * finding 4). An export made with a credential (a token or a staff session) is its holder's and
 * is not counted here. Mounted after `viewingCaller`, which names the credential.
 *
 * An export counts until its response is over, not when its handler returns: an xlsx export
 * writes its file after that.
 */
export function exportsPerAddress(perAddress: number, addresses: CallerAddresses): Middleware {
  const running = new Map<string, number>();
  return async (ctx, next) => {
    if (ctx.state.principal) return next();
    const address = addresses.of(ctx.req);
    const now = running.get(address) ?? 0;
    if (now >= perAddress) {
      throw new HttpError(
        429,
        `This address already has ${perAddress} exports under way without a credential; wait for one to ` +
          "finish, or sign in (a signed-in person's exports are not counted per address).",
        { "Retry-After": RETRY_AFTER_SECONDS },
        "exports-per-address",
      );
    }
    running.set(address, now + 1);
    let counted = true;
    const release = () => {
      if (!counted) return;
      counted = false;
      const left = (running.get(address) ?? 1) - 1;
      if (left > 0) running.set(address, left);
      else running.delete(address);
    };
    // Gone already: its close has been told and will not be again.
    if (ctx.req.socket.destroyed) release();
    else ctx.res.once("close", release);
    await next();
  };
}
