import * as oidc from "openid-client";

/** What the deployment says about its OpenID Provider (contract E.1; config.ts reads them). */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The service's own external base URL; the redirect URI is `<publicUrl>/staff/callback`. */
  publicUrl: string;
  /** Scopes asked for besides `openid profile`. */
  extraScopes: readonly string[];
  claims: { tenant: string; roles: string; wards: string };
  /** OIDC_TENANT: the tenant of a sign-in whose provider sends no tenant claim (null: not set; signInTenant.ts). */
  tenant: string | null;
  /** How the staff pages name the provider ("Sign in with <displayName>"). */
  displayName: string;
}

/** A sign-in sent to the provider: what its callback must find again (kept by the browser that started it, signInSeal.ts). */
export interface PendingSignIn {
  state: string;
  codeVerifier: string;
  nonce: string;
}

/** The person the provider vouched for, as the claims say. */
export interface SignedInPerson {
  sub: string;
  name: string;
  /** From the tenant claim; null when the provider sends none. */
  tenant: string | null;
  /** From the roles claim; null when the provider sends none. */
  roles: string[] | null;
  /** From the wards claim; null when the provider sends none (every ward). */
  wards: string[] | null;
  idToken: string;
}

/** A callback the provider did not vouch for: a wrong state, a failed exchange, an ID token that does not verify. */
export class SignInRefused extends Error {}

/**
 * The service as an OpenID Connect relying party, with openid-client (the certified library; no
 * OAuth written here): authorization code with PKCE (S256), state and nonce; the ID token's
 * signature, issuer, audience, nonce and expiry verified by the library (the signature checked
 * against the provider's keys even though it came straight from the token endpoint); claims from the ID token
 * and, for those it lacks, from userinfo. The provider's metadata is discovered on first use
 * and again after a failure, so a provider that was down at the service's start is found later.
 */
export class OidcRelyingParty {
  #configuration: Promise<oidc.Configuration> | null = null;

  constructor(readonly settings: OidcSettings) {}

  get redirectUri(): string {
    return `${this.#base()}/staff/callback`;
  }

  /** The provider's authorization URL for a new sign-in, and what its callback must check. */
  async begin(): Promise<{ url: string; pending: PendingSignIn }> {
    const configuration = await this.#discovered();
    const pending = {
      state: oidc.randomState(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
      nonce: oidc.randomNonce(),
    };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.redirectUri,
      scope: ["openid", "profile", ...this.settings.extraScopes].join(" "),
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: "S256",
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url: url.href, pending };
  }

  /** Exchanges the callback's code and verifies what comes back; SignInRefused when anything does not hold. */
  async finish(callbackUrl: URL, pending: PendingSignIn): Promise<SignedInPerson> {
    const configuration = await this.#discovered();
    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      throw new SignInRefused(refusalOf(error));
    }
    const idClaims = tokens.claims();
    if (!idClaims) throw new SignInRefused("the provider answered without an ID token");
    let claims: Record<string, unknown> = { ...idClaims };
    const { tenant, roles, wards } = this.settings.claims;
    if (!("name" in claims) || !(roles in claims) || !(wards in claims) || !(tenant in claims)) {
      try {
        const userInfo = await oidc.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
        claims = { ...userInfo, ...claims };
      } catch {
        // The ID token's claims are enough to sign in: userinfo only adds what they lack.
      }
    }
    return {
      sub: idClaims.sub,
      name: textClaim(claims.name) ?? textClaim(claims.preferred_username) ?? idClaims.sub,
      tenant: textClaim(claims[tenant]),
      roles: listClaim(claims[roles]),
      wards: listClaim(claims[wards]),
      idToken: tokens.id_token!,
    };
  }

  /** The provider's end-session URL for a sign-in (back to the staff pages after), or null when it has none. */
  async endSessionUrl(idToken: string): Promise<string | null> {
    const configuration = await this.#discovered();
    if (!configuration.serverMetadata().end_session_endpoint) return null;
    return oidc.buildEndSessionUrl(configuration, {
      id_token_hint: idToken,
      post_logout_redirect_uri: `${this.#base()}/staff`,
    }).href;
  }

  #base(): string {
    return this.settings.publicUrl.replace(/\/+$/, "");
  }

  #discovered(): Promise<oidc.Configuration> {
    if (!this.#configuration) {
      const { issuer, clientId, clientSecret } = this.settings;
      const issuerUrl = new URL(issuer);
      // Plain http only to a provider on this machine (a developer's or a test's); a hospital's runs https.
      const loopback =
        issuerUrl.protocol === "http:" && ["localhost", "127.0.0.1", "[::1]"].includes(issuerUrl.hostname);
      this.#configuration = oidc
        .discovery(
          issuerUrl,
          clientId,
          { client_secret: clientSecret },
          undefined,
          loopback ? { execute: [oidc.allowInsecureRequests] } : undefined,
        )
        .then((configuration) => withClientAuthentication(configuration, clientId, clientSecret, loopback));
      this.#configuration.catch(() => (this.#configuration = null));
    }
    return this.#configuration;
  }
}

/** client_secret_basic, or client_secret_post where the provider offers only that (contract E.1). */
function withClientAuthentication(
  discovered: oidc.Configuration,
  clientId: string,
  clientSecret: string,
  loopback: boolean,
): oidc.Configuration {
  const offered = discovered.serverMetadata().token_endpoint_auth_methods_supported;
  const postOnly =
    offered !== undefined && !offered.includes("client_secret_basic") && offered.includes("client_secret_post");
  const configuration = new oidc.Configuration(
    discovered.serverMetadata(),
    clientId,
    { client_secret: clientSecret },
    postOnly ? oidc.ClientSecretPost(clientSecret) : oidc.ClientSecretBasic(clientSecret),
  );
  if (loopback) oidc.allowInsecureRequests(configuration);
  // The ID token's signature too (contract E.1), not only the TLS of the token endpoint's answer,
  // which the library would otherwise accept in its place (OpenID Connect Core 3.1.3.7).
  oidc.enableNonRepudiationChecks(configuration);
  return configuration;
}

function refusalOf(error: unknown): string {
  if (error instanceof oidc.ClientError || error instanceof Error) return error.message;
  return "the provider's answer could not be verified";
}

function textClaim(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : null;
}

function listClaim(value: unknown): string[] | null {
  if (Array.isArray(value)) return value.filter((item): item is string => typeof item === "string" && item !== "");
  if (typeof value === "string") return value.split(/[\s,]+/).filter(Boolean);
  return null;
}
