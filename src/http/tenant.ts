import type { Middleware } from "koa";
import { TENANT_PATTERN } from "../../db/tenantScope.ts";
import { HttpError } from "./httpError.ts";

export const DEFAULT_TENANT = "default";

/** X-Service-Tenant (set by the reverse proxy) chooses the tenant; absent means `default`. */
export function resolveTenant(): Middleware {
  return async (ctx, next) => {
    const header = ctx.get("x-service-tenant");
    const tenant = header === "" ? DEFAULT_TENANT : header;
    if (!TENANT_PATTERN.test(tenant)) {
      throw new HttpError(400, "X-Service-Tenant must be 1 to 64 letters, digits, '_' or '-'.");
    }
    ctx.state.tenant = tenant;
    await next();
  };
}
