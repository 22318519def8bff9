// How every client of this package sends a request: the URL and query, the token when the route
// needs one, the JSON body, and the answer parsed, or a refusal thrown as `LeaderboardError`
// with the API's code and any `Retry-After`. The types name each operation's answer and query
// from the types openapi-typescript generates from openapi.yaml (src/generated/api.ts).
import type { components, operations } from "./generated/api.js";
import { LeaderboardError, retryAfterSeconds } from "./errors.js";

type Schemas = components["schemas"];
/** The JSON body of an operation's answer with status `S`. */
export type Answer<Op extends keyof operations, S extends number = 200> =
  operations[Op]["responses"] extends { [K in S]: { content: { "application/json": infer T } } }
    ? T
    : never;
/** An operation's query parameters. */
export type Query<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;

/** How a client reaches the API. */
export interface ClientOptions {
  /** The API's address, such as `https://abc.execute-api.eu-west-1.amazonaws.com` or `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** The caller's JWT for the routes that need one; called before each such request, so a refreshed token is used at once. */
  getToken?: () => string | undefined | Promise<string | undefined>;
  /** The fetch to use (the platform's by default). */
  fetch?: typeof fetch;
}

/** One request's parts besides its method and path. */
export interface Send {
  query?: Record<string, string | number | undefined> | undefined;
  body?: unknown;
  auth?: boolean;
  headers?: Record<string, string>;
}

/** Sends requests to one API as one caller. */
export class Transport {
  readonly #baseUrl: string;
  readonly #getToken: ClientOptions["getToken"];
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#getToken = options.getToken;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  async send<T>(method: string, path: string, send: Send): Promise<T> {
    const url = new URL(this.#baseUrl + path);
    for (const [k, v] of Object.entries(send.query ?? {})) {
      if (v !== undefined) url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = { ...send.headers };
    if (send.body !== undefined) headers["content-type"] = "application/json";
    if (send.auth) {
      const token = await this.#getToken?.();
      if (token !== undefined) headers["authorization"] = `Bearer ${token}`;
    }
    const init: RequestInit = { method, headers };
    if (send.body !== undefined) init.body = JSON.stringify(send.body);
    let response: Response;
    try {
      response = await this.#fetch(url, init);
    } catch (e) {
      throw new LeaderboardError(0, "network", `no answer from ${url.origin}: ${String(e)}`);
    }
    const text = await response.text().catch(() => "");
    if (response.ok) {
      return (text === "" ? undefined : JSON.parse(text)) as T;
    }
    let error: Partial<Schemas["Error"]["error"]> = {};
    try {
      error = (JSON.parse(text) as Schemas["Error"]).error ?? {};
    } catch {
      // An answer that is not the API's (a proxy's page): its status says enough.
    }
    throw new LeaderboardError(
      response.status,
      error.code ?? (response.status >= 500 ? "unavailable" : "invalid_request"),
      error.message ?? `${method} ${path}: HTTP ${response.status}`,
      retryAfterSeconds(response.headers.get("retry-after")),
      error.sessionId ?? undefined,
    );
  }
}

/** A path segment, escaped. */
export function enc(segment: string): string {
  return encodeURIComponent(segment);
}
