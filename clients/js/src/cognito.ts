// Signing a player in to the stack's Cognito user pool from a game, with no AWS SDK and no SRP
// client: Cognito's public JSON API over fetch (`InitiateAuth` with the password over TLS, which
// the template's app client allows), tokens kept and renewed before they expire, so
// `getToken` can be handed to `LeaderboardClient` as it is.
import type { LeaderboardClient } from "./client.js";
import { LeaderboardError } from "./errors.js";

/** The tokens of a signed-in player. */
export interface Tokens {
  idToken: string;
  accessToken: string;
  /** Renews the other two (Cognito keeps it 30 days by default). */
  refreshToken: string;
  /** When the ID and access tokens expire (epoch ms). */
  expiresAt: number;
}

/** Where the pool is, and what to keep. */
export interface SignInOptions {
  /** The app client (the stack's `UserPoolClientId` output). */
  clientId: string;
  /** The pool's region (the part of `UserPoolId` before `_`), unless `endpoint` is given. */
  region?: string;
  /** Cognito's address (an emulator's in tests); `https://cognito-idp.<region>.amazonaws.com/` by default. */
  endpoint?: string;
  /** Called with the tokens each time they change (`undefined` on sign-out): keep the refresh token to sign in again without the password. */
  onTokens?: (tokens: Tokens | undefined) => void;
  /** The clock (epoch ms); a test passes its own. */
  now?: () => number;
  fetch?: typeof fetch;
}

/** Renewed this long before they expire, so a token sent is never a minute from its end. */
const RENEW_BEFORE_MS = 60_000;

/** A player signed in to the pool: sign up, sign in, tokens renewed, an email linked. */
export class CognitoSignIn {
  readonly #options: SignInOptions;
  readonly #endpoint: string;
  readonly #fetch: typeof fetch;
  #tokens: Tokens | undefined;
  #renewing: Promise<Tokens> | undefined;

  constructor(options: SignInOptions) {
    if (!options.endpoint && !options.region) throw new TypeError("CognitoSignIn needs a region or an endpoint");
    this.#options = options;
    this.#endpoint = options.endpoint ?? `https://cognito-idp.${options.region}.amazonaws.com/`;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** The current tokens, if signed in. */
  get tokens(): Tokens | undefined {
    return this.#tokens;
  }

  /** Creates an account (Cognito emails a code to confirm it with `confirmSignUp`). */
  async signUp(email: string, password: string): Promise<void> {
    await this.#call("SignUp", { ClientId: this.#options.clientId, Username: email, Password: password });
  }

  /** Confirms an account with the emailed code. */
  async confirmSignUp(email: string, code: string): Promise<void> {
    await this.#call("ConfirmSignUp", { ClientId: this.#options.clientId, Username: email, ConfirmationCode: code });
  }

  /**
   * Makes a guest account through the API (`client`'s `POST /players/guest`) and signs in as
   * it. Answers the account: keep `username` and `password` (or the refresh token `onTokens`
   * gives) on the device to sign in again; `linkEmail` later keeps the player's id.
   */
  async signInAsGuest(client: LeaderboardClient): Promise<{ playerId: string; username: string; password: string }> {
    const account = await client.createGuest();
    this.#tokens = {
      idToken: account.idToken,
      accessToken: account.accessToken,
      refreshToken: account.refreshToken,
      expiresAt: this.#now() + account.expiresIn * 1000,
    };
    this.#options.onTokens?.(this.#tokens);
    return { playerId: account.playerId, username: account.username, password: account.password };
  }

  /** Signs in with the password. */
  async signIn(username: string, password: string): Promise<Tokens> {
    return this.#authenticate("USER_PASSWORD_AUTH", { USERNAME: username, PASSWORD: password });
  }

  /** Signs in again with a refresh token kept from an earlier session. */
  async restore(refreshToken: string): Promise<Tokens> {
    return this.#authenticate("REFRESH_TOKEN_AUTH", { REFRESH_TOKEN: refreshToken }, refreshToken);
  }

  /**
   * The ID token for the API, renewed first when it expires within a minute: pass it as
   * `getToken` to `LeaderboardClient`. `undefined` when signed out.
   */
  getToken = async (): Promise<string | undefined> => {
    const tokens = this.#tokens;
    if (tokens === undefined) return undefined;
    if (tokens.expiresAt - RENEW_BEFORE_MS > this.#now()) return tokens.idToken;
    // One renewal at a time, however many requests wait for it.
    this.#renewing ??= this.restore(tokens.refreshToken).finally(() => {
      this.#renewing = undefined;
    });
    return (await this.#renewing).idToken;
  };

  /**
   * Links an email address to the signed-in account (a guest's, or a change of address):
   * Cognito emails a code to confirm it with `verifyEmail`. The player keeps their id, and so
   * their scores and history.
   */
  async linkEmail(email: string): Promise<void> {
    await this.#call("UpdateUserAttributes", {
      AccessToken: this.#signedIn().accessToken,
      UserAttributes: [{ Name: "email", Value: email }],
    });
  }

  /** Confirms the linked address with the emailed code. */
  async verifyEmail(code: string): Promise<void> {
    await this.#call("VerifyUserAttribute", {
      AccessToken: this.#signedIn().accessToken,
      AttributeName: "email",
      Code: code,
    });
  }

  /** Forgets the tokens (they stay valid until they expire). */
  signOut(): void {
    this.#tokens = undefined;
    this.#options.onTokens?.(undefined);
  }

  #signedIn(): Tokens {
    if (this.#tokens === undefined) throw new LeaderboardError(401, "unauthorized", "not signed in");
    return this.#tokens;
  }

  #now(): number {
    return this.#options.now?.() ?? Date.now();
  }

  async #authenticate(flow: string, parameters: Record<string, string>, refreshToken?: string): Promise<Tokens> {
    const started = this.#now();
    const answer = (await this.#call("InitiateAuth", {
      ClientId: this.#options.clientId,
      AuthFlow: flow,
      AuthParameters: parameters,
    })) as { AuthenticationResult?: Record<string, unknown>; ChallengeName?: string };
    const result = answer.AuthenticationResult;
    if (result === undefined) {
      throw new LeaderboardError(401, "unauthorized", `sign-in needs ${answer.ChallengeName ?? "a challenge"} answered first`);
    }
    this.#tokens = {
      idToken: String(result["IdToken"]),
      accessToken: String(result["AccessToken"]),
      // A renewal answers no new refresh token: the one used stays good.
      refreshToken: String(result["RefreshToken"] ?? refreshToken),
      expiresAt: started + Number(result["ExpiresIn"] ?? 3600) * 1000,
    };
    this.#options.onTokens?.(this.#tokens);
    return this.#tokens;
  }

  /** One call of Cognito's JSON API; a refusal is a `LeaderboardError` with Cognito's message. */
  async #call(operation: string, body: unknown): Promise<unknown> {
    let response: Response;
    try {
      response = await this.#fetch(this.#endpoint, {
        method: "POST",
        headers: {
          "content-type": "application/x-amz-json-1.1",
          "x-amz-target": `AWSCognitoIdentityProviderService.${operation}`,
        },
        body: JSON.stringify(body),
      });
    } catch (e) {
      throw new LeaderboardError(0, "network", `no answer from Cognito: ${String(e)}`);
    }
    const text = await response.text().catch(() => "");
    const json = (text === "" ? {} : JSON.parse(text)) as Record<string, unknown>;
    if (response.ok) return json;
    // Cognito names the error in `__type` (sometimes with a namespace before `#`).
    const type = String(json["__type"] ?? response.headers.get("x-amzn-errortype") ?? "").split("#").pop() ?? "";
    const message = `${operation}: ${type || response.status}: ${String(json["message"] ?? json["Message"] ?? "")}`;
    const code = type === "NotAuthorizedException" || type === "UserNotConfirmedException" ? "unauthorized"
      : type === "TooManyRequestsException" || type === "LimitExceededException" ? "rate_limited"
      : response.status >= 500 ? "unavailable"
      : "invalid_request";
    throw new LeaderboardError(response.status, code, message);
  }
}
