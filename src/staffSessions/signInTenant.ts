/*
 * Which tenant a sign-in opens its session in (issue #51). The provider's tenant claim first, then
 * OIDC_TENANT: both come from the hospital, not from the browser. The tenant `/staff/login` named
 * (its `?tenant=` or X-Service-Tenant) comes from the browser: a person can name any tenant there,
 * and even a proxy that sets the header itself only tells which address the browser used, and any
 * person the provider knows can use any tenant's address. So it is taken only while the store
 * holds no other tenant, where it names the only one there is (or the first, on an empty store).
 */

export interface SignInTenantSources {
  /** From the provider's OIDC_TENANT_CLAIM; null when it sends none. */
  claimed: string | null;
  /** OIDC_TENANT; null when not set. */
  configured: string | null;
  /** What `/staff/login` named. */
  asked: string;
  holdsAnotherTenant: (tenant: string) => Promise<boolean>;
}

/** The sign-in's tenant, or null when nothing but the browser names one and the store holds several. */
export async function signInTenant(sources: SignInTenantSources): Promise<string | null> {
  if (sources.claimed !== null) return sources.claimed;
  if (sources.configured !== null) return sources.configured;
  return (await sources.holdsAnotherTenant(sources.asked)) ? null : sources.asked;
}
