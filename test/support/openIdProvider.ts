import type { AddressInfo } from "node:net";
import { createServer, type Server } from "node:http";
import Provider from "oidc-provider";
import { allProjections } from "../../src/app/allProjections.ts";
import type { RunningService } from "../../src/app/service.ts";
import { startTestService, useService } from "./service.ts";

/** The claims of the person the provider signs in next. */
export interface ProviderPerson {
  sub: string;
  name: string;
  tenant?: string;
  roles?: string[];
  wards?: string[];
}

/**
 * A real OpenID Provider (oidc-provider, the certified Node implementation) on a port of its own,
 * for the service's sign-in tests. The person to sign in is set beforehand (`signInAs`): the
 * provider's login step finishes at once as that person, and consent is taken as given (a
 * first-party client), so a test follows plain redirects. `tamperNextIdToken` breaks the signature
 * of the next ID token the token endpoint hands out.
 */
export class TestOpenIdProvider {
  person: ProviderPerson = { sub: "nobody", name: "Nobody" };
  tamperNextIdToken = false;
  private server: Server | null = null;
  issuer = "";

  constructor(private readonly client: { clientId: string; clientSecret: string; publicUrl: string }) {}

  async start(): Promise<this> {
    // The issuer names its own port, known only once listening: listen first, then make the provider.
    let handler: ((req: unknown, res: unknown) => void) | null = null;
    this.server = createServer((req, res) => handler!(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, "127.0.0.1", resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    const people = () => this.person;
    const provider = new Provider(this.issuer, {
      clients: [
        {
          client_id: this.client.clientId,
          client_secret: this.client.clientSecret,
          redirect_uris: [`${this.client.publicUrl}/staff/callback`],
          post_logout_redirect_uris: [`${this.client.publicUrl}/staff`],
          grant_types: ["authorization_code"],
          response_types: ["code"],
          token_endpoint_auth_method: "client_secret_basic",
        },
      ],
      claims: { openid: ["sub"], profile: ["name", "tenant", "roles", "wards"] },
      findAccount: async (_ctx, sub) => ({ accountId: sub, claims: async () => ({ ...people(), sub }) }),
      features: { devInteractions: { enabled: false }, rpInitiatedLogout: { enabled: true } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      loadExistingGrant: async (ctx) => {
        const accountId = ctx.oidc.session?.accountId;
        if (!accountId || !ctx.oidc.client) return undefined;
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId });
        grant.addOIDCScope("openid profile");
        grant.addOIDCClaims(["name", "tenant", "roles", "wards"]);
        await grant.save();
        return grant;
      },
      cookies: { keys: ["test-provider-cookie-key-0123456789"] },
      pkce: { required: () => true },
    });
    provider.use(async (ctx, next) => {
      if (ctx.path.startsWith("/interaction/")) {
        await provider.interactionFinished(
          ctx.req,
          ctx.res,
          { login: { accountId: this.person.sub } },
          { mergeWithLastSubmission: false },
        );
        ctx.respond = false;
        return;
      }
      await next();
      if (
        ctx.path === "/token" &&
        this.tamperNextIdToken &&
        ctx.body &&
        typeof ctx.body === "object" &&
        "id_token" in ctx.body
      ) {
        this.tamperNextIdToken = false;
        const body = ctx.body as { id_token: string };
        const [header, payload, signature] = body.id_token.split(".");
        body.id_token = `${header}.${payload}.${signature!.slice(0, -4)}${signature!.slice(-4) === "AAAA" ? "BBBB" : "AAAA"}`;
      }
    });
    handler = provider.callback() as (req: unknown, res: unknown) => void;
    return this;
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => this.server?.close(resolve));
    this.server?.closeAllConnections();
  }
}

/** Where a sign-in starts: the tenant the proxy's header names (null: no header), and the query of `/staff/login`. */
export interface SignInStart {
  tenant?: string | null;
  query?: Record<string, string>;
}

/**
 * A browser's walk to the service's callback: from the service's /staff/login through the
 * provider's redirects (its cookies kept), up to the callback the provider sends the browser to,
 * not yet followed. `browserCookie` is the `Cookie` header this browser holds for the callback:
 * what /staff/login set in it (empty when it set nothing). `publicUrl` (what the provider
 * redirects to) is rewritten to the service's real address.
 */
export async function walkToCallback(
  serviceUrl: string,
  publicUrl: string,
  start: SignInStart = {},
): Promise<{ callbackUrl: string; browserCookie: string }> {
  const tenant = start.tenant === undefined ? "default" : start.tenant;
  const query = start.query ? `?${new URLSearchParams(start.query)}` : "";
  const begun = await fetch(`${serviceUrl}/staff/login${query}`, {
    redirect: "manual",
    headers: tenant === null ? {} : { "x-service-tenant": tenant },
  });
  if (begun.status !== 302) throw new Error(`/staff/login answered ${begun.status}: ${await begun.text()}`);
  const browserCookie = begun.headers
    .getSetCookie()
    .map((line) => line.split(";")[0]!)
    .join("; ");
  let location = begun.headers.get("location")!;
  const jar = new Map<string, string>();
  for (let hop = 0; !location.startsWith(publicUrl); hop++) {
    if (hop > 10) throw new Error(`the provider never sent the browser back (last at ${location})`);
    const answer = await fetch(location, {
      redirect: "manual",
      headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join("; ") },
    });
    for (const cookie of answer.headers.getSetCookie()) {
      const [pair] = cookie.split(";");
      const [name, value] = pair!.split("=");
      jar.set(name!.trim(), value ?? "");
    }
    const next = answer.headers.get("location");
    if (!next)
      throw new Error(
        `the provider answered ${answer.status} without a redirect: ${(await answer.text()).slice(0, 300)}`,
      );
    location = new URL(next, location).href;
  }
  return { callbackUrl: location.replace(publicUrl, serviceUrl), browserCookie };
}

/** A browser's whole walk through a sign-in (walkToCallback), and the callback's answer to that same browser. */
export async function walkSignIn(
  serviceUrl: string,
  publicUrl: string,
  start: string | SignInStart = "default",
): Promise<{ callback: Response; callbackUrl: string; browserCookie: string }> {
  const { callbackUrl, browserCookie } = await walkToCallback(
    serviceUrl,
    publicUrl,
    typeof start === "string" ? { tenant: start } : start,
  );
  const callback = await fetch(callbackUrl, {
    redirect: "manual",
    headers: browserCookie ? { cookie: browserCookie } : {},
  });
  return { callback, callbackUrl, browserCookie };
}

/** The service's external address in the sign-in tests: the provider redirects there, walkSignIn maps it to the real one. */
export const TEST_PUBLIC_URL = "http://dialysis-hub.test";
export const TEST_OIDC_CLIENT = {
  clientId: "dialysis-hub",
  clientSecret: "test-client-secret-0123456789",
  publicUrl: TEST_PUBLIC_URL,
};

/**
 * A suite's service that signs staff in through its own TestOpenIdProvider (started first, since
 * the service needs its issuer), with `env` besides; both stop after the suite.
 */
export function useServiceWithProvider(env: Record<string, string> = {}): {
  service: RunningService;
  provider: TestOpenIdProvider;
} {
  const provider = new TestOpenIdProvider(TEST_OIDC_CLIENT);
  const hub = useService(async () => {
    await provider.start();
    const oidc = {
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: TEST_OIDC_CLIENT.clientId,
      OIDC_CLIENT_SECRET: TEST_OIDC_CLIENT.clientSecret,
      PUBLIC_URL: TEST_PUBLIC_URL,
    };
    return { service: await startTestService({ projections: allProjections, env: { ...oidc, ...env } }), provider };
  });
  after(() => provider.stop());
  return hub;
}

/** Signs `person` in through the provider; answers the `Cookie` header of the session. */
export async function sessionCookieOf(
  serviceUrl: string,
  provider: TestOpenIdProvider,
  person: ProviderPerson,
): Promise<string> {
  provider.person = person;
  const { callback } = await walkSignIn(serviceUrl, TEST_PUBLIC_URL);
  const setCookie = callback.headers.getSetCookie().find((line) => line.startsWith("dh_session="));
  if (!setCookie) throw new Error(`the callback answered ${callback.status} without a session cookie`);
  return setCookie.split(";")[0]!;
}
