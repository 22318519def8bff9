// Who the console acts as, and where the API is. `config.json` beside the page names a deployed
// stack (`apiUrl`, and for the hosted sign-in `signInUrl` and `webClientId`); without it the
// console is the local stack's, served by it, and an admin pastes a token the stack printed.
// Hosted sign-in is Cognito's authorization code flow with PKCE: the page holds no secret and
// keeps the tokens in this tab's sessionStorage only.
import { AdminClient } from "../../clients/js/src/admin.js";
import { LeaderboardClient } from "../../clients/js/src/client.js";
import { LeaderboardError } from "../../clients/js/src/errors.js";

/** Where the console's API and sign-in are. */
export interface Config {
  /** The API's address; the page's own origin on the local stack. */
  apiUrl: string;
  /** The pool's hosted sign-in (`SignInUrl` output), for a deployed stack. */
  signInUrl?: string;
  /** The public web client (`WebClientId` output). */
  webClientId?: string;
  /** Whether the API is the local stack's (its `GET /local/events`). */
  local: boolean;
}

const TOKEN_KEY = "lb-console-token";
const VERIFIER_KEY = "lb-console-pkce";

/** The config: `config.json` if the host put one beside the page, else the local stack's. */
export async function loadConfig(): Promise<Config> {
  const response = await fetch(new URL("config.json", location.href)).catch(() => undefined);
  if (response?.ok) {
    const given = (await response.json()) as Partial<Config>;
    if (typeof given.apiUrl === "string") return { ...given, apiUrl: given.apiUrl, local: false };
  }
  return { apiUrl: location.origin, local: true };
}

/** The clients, acting with the token kept for this tab. */
export interface Api {
  admin: AdminClient;
  reads: LeaderboardClient;
  config: Config;
}

export function api(config: Config): Api {
  const getToken = () => sessionStorage.getItem(TOKEN_KEY) ?? undefined;
  return {
    admin: new AdminClient({ baseUrl: config.apiUrl, getToken }),
    reads: new LeaderboardClient({ baseUrl: config.apiUrl, getToken }),
    config,
  };
}

export function signedIn(): boolean {
  return sessionStorage.getItem(TOKEN_KEY) !== null;
}

export function signOut(): void {
  sessionStorage.removeItem(TOKEN_KEY);
}

/**
 * Keeps `token` if the API takes it as an admin's: one admin read (`GET /admin/recount`, a
 * single GetItem), whose 200 or 404 says so. Otherwise the reason, in words, and nothing kept.
 */
export async function adopt(config: Config, token: string): Promise<string | undefined> {
  const trimmed = token.trim().replace(/^Bearer\s+/i, "");
  if (trimmed === "") return "Paste a token first.";
  const probe = new AdminClient({ baseUrl: config.apiUrl, getToken: () => trimmed });
  try {
    await probe.recount();
  } catch (e) {
    if (!(e instanceof LeaderboardError)) throw e;
    if (e.status === 401) return `The API refused this token: ${e.message}`;
    if (e.status === 403) return "This token is not an admin's: its cognito:groups has no admin.";
    if (e.status !== 404) return `The API could not check the token (${e.status} ${e.code}): try again.`;
  }
  sessionStorage.setItem(TOKEN_KEY, trimmed);
  return undefined;
}

/** Sends the admin to the hosted sign-in, with a fresh PKCE challenge. */
export async function hostedSignIn(config: Config): Promise<void> {
  if (!config.signInUrl || !config.webClientId) return;
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  sessionStorage.setItem(VERIFIER_KEY, verifier);
  const url = new URL("/oauth2/authorize", config.signInUrl);
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: config.webClientId,
    redirect_uri: callback(),
    scope: "openid email",
    code_challenge_method: "S256",
    code_challenge: await challenge(verifier),
  }).toString();
  location.assign(url.toString());
}

/**
 * On the way back from the hosted sign-in (`?code=` in the address): the code for tokens, the
 * ID token kept if it is an admin's. The reason otherwise; `undefined` with no code to take.
 */
export async function finishHostedSignIn(config: Config): Promise<string | undefined> {
  const code = new URLSearchParams(location.search).get("code");
  const verifier = sessionStorage.getItem(VERIFIER_KEY);
  if (code === null || !config.signInUrl || !config.webClientId) return undefined;
  history.replaceState(null, "", callback() + location.hash);
  if (verifier === null) return "The sign-in was started in another tab: sign in again.";
  sessionStorage.removeItem(VERIFIER_KEY);
  const response = await fetch(new URL("/oauth2/token", config.signInUrl), {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code",
      client_id: config.webClientId,
      redirect_uri: callback(),
      code,
      code_verifier: verifier,
    }),
  });
  if (!response.ok) return `The sign-in did not finish (${response.status}): sign in again.`;
  const tokens = (await response.json()) as { id_token?: string };
  return adopt(config, tokens.id_token ?? "");
}

/** The page's address without query or fragment: the callback the web client lists. */
function callback(): string {
  return location.origin + location.pathname;
}

/** The S256 challenge of `verifier` (RFC 7636, 4.2). */
export async function challenge(verifier: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  return base64url(new Uint8Array(digest));
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
