// The client object: a method per player-facing route of openapi.yaml, each typed by the types
// openapi-typescript generates from it (src/generated/api.ts), so the document and the client
// cannot drift. Refusals and lost answers are thrown as `LeaderboardError`.
import type { components, operations } from "./generated/api.js";
import { LeaderboardError, retryAfterSeconds } from "./errors.js";

type Schemas = components["schemas"];
/** The JSON body of an operation's answer with status `S`. */
type Answer<Op extends keyof operations, S extends number = 200> =
  operations[Op]["responses"] extends { [K in S]: { content: { "application/json": infer T } } }
    ? T
    : never;
/** An operation's query parameters. */
type Query<Op extends keyof operations> = NonNullable<operations[Op]["parameters"]["query"]>;

/** A play on 1 to 10 boards (`POST /sessions`). */
export type Play = Schemas["SessionRequest"];
/** A play on one board (`POST /leaderboards/{boardId}/scores`). */
export type Score = Schemas["ScoreRequest"];
/** What a play did on each of its boards, with each rank and its freshness. */
export type PlayOutcome = Answer<"submitSession">;
/** One entry of a top-N page. */
export type ListedEntry = Schemas["ListedEntry"];

/** How a client reaches the API. */
export interface ClientOptions {
  /** The API's address, such as `https://abc.execute-api.eu-west-1.amazonaws.com` or `http://127.0.0.1:3000`. */
  baseUrl: string;
  /** The player's JWT for the routes that need one; called before each such request, so a refreshed token is used at once. */
  getToken?: () => string | undefined | Promise<string | undefined>;
  /** The fetch to use (the platform's by default). */
  fetch?: typeof fetch;
}

interface Send {
  query?: Record<string, string | number | undefined> | undefined;
  body?: unknown;
  auth?: boolean;
  headers?: Record<string, string>;
}

/** The leaderboard API, one method per player-facing route. */
export class LeaderboardClient {
  readonly #baseUrl: string;
  readonly #getToken: ClientOptions["getToken"];
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    this.#baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.#getToken = options.getToken;
    this.#fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  }

  /** Posts a play to its boards (`POST /sessions`), all or none. Resend the same `sessionId` on a retry. */
  postPlay(play: Play, idempotencyKey?: string): Promise<PlayOutcome> {
    return this.#send("POST", "/sessions", {
      body: play,
      auth: true,
      ...(idempotencyKey === undefined ? {} : { headers: { "idempotency-key": idempotencyKey } }),
    });
  }

  /** Posts a play to one board (`POST /leaderboards/{boardId}/scores`). */
  postScore(boardId: string, score: Score, idempotencyKey?: string): Promise<Answer<"submitBoardScore">> {
    return this.#send("POST", `/leaderboards/${enc(boardId)}/scores`, {
      body: score,
      auth: true,
      ...(idempotencyKey === undefined ? {} : { headers: { "idempotency-key": idempotencyKey } }),
    });
  }

  /**
   * Joins a tournament board (`POST /leaderboards/{boardId}/join`): on a board with
   * `joinRequired` a play counts only after it. Repeatable. A board with all its `maxEntrants`
   * is `board_full`.
   */
  join(boardId: string): Promise<Answer<"joinLeaderboard">> {
    return this.#send("POST", `/leaderboards/${enc(boardId)}/join`, { auth: true });
  }

  /** The boards, newest first, a page at a time (`GET /leaderboards`). */
  boards(query: Query<"listLeaderboards"> = {}): Promise<Answer<"listLeaderboards">> {
    return this.#send("GET", "/leaderboards", { query });
  }

  /** A board's settings and state. */
  board(boardId: string): Promise<Answer<"getLeaderboard">> {
    return this.#send("GET", `/leaderboards/${enc(boardId)}`, {});
  }

  /** One page of a board's top-N (`nextCursor` leads to the next). */
  topPage(boardId: string, query: { limit?: number; cursor?: string } = {}): Promise<Answer<"topScores">> {
    return this.#send("GET", `/leaderboards/${enc(boardId)}/scores`, { query });
  }

  /** Every entry of a board in rank order, fetched a page of `pageSize` at a time as it is iterated. */
  async *top(boardId: string, pageSize = 100): AsyncGenerator<ListedEntry> {
    let cursor: string | undefined;
    do {
      const page = await this.topPage(boardId, cursor === undefined ? { limit: pageSize } : { limit: pageSize, cursor });
      yield* page.entries;
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
  }

  /** Chosen players' entries on a board (friends), each with its board-wide rank. */
  friends(boardId: string, playerIds: string[]): Promise<Answer<"topScores">> {
    return this.#send("GET", `/leaderboards/${enc(boardId)}/scores`, { query: { playerIds: playerIds.join(",") } });
  }

  /** A player's entry and rank on a board, with how fresh the rank is. */
  rank(boardId: string, playerId: string): Promise<Answer<"playerRank">> {
    return this.#send("GET", `/leaderboards/${enc(boardId)}/players/${enc(playerId)}`, {});
  }

  /** Up to `n` entries above and below a player. */
  around(boardId: string, playerId: string, n?: number): Promise<Answer<"aroundPlayer">> {
    return this.#send("GET", `/leaderboards/${enc(boardId)}/players/${enc(playerId)}/around`, { query: { n } });
  }

  /** A player's public profile. */
  player(playerId: string): Promise<Answer<"getPlayer">> {
    return this.#send("GET", `/players/${enc(playerId)}`, {});
  }

  /** A player's entries, a page at a time. */
  playerScores(playerId: string, query: Query<"playerScores"> = {}): Promise<Answer<"playerScores">> {
    return this.#send("GET", `/players/${enc(playerId)}/scores`, { query });
  }

  /** A player's results on closed boards, a page at a time. */
  playerResults(playerId: string, query: Query<"playerResults"> = {}): Promise<Answer<"playerResults">> {
    return this.#send("GET", `/players/${enc(playerId)}/results`, { query });
  }

  /** A player's recent plays, a page at a time. */
  playerSessions(playerId: string, query: Query<"playerSessions"> = {}): Promise<Answer<"playerSessions">> {
    return this.#send("GET", `/players/${enc(playerId)}/sessions`, { query });
  }

  /** One play of a player's. */
  session(playerId: string, sessionId: string): Promise<Answer<"getSession">> {
    return this.#send("GET", `/players/${enc(playerId)}/sessions/${enc(sessionId)}`, {});
  }

  /** A player's standing in a league's current period: tier, cohort, rank, the ranks that move. */
  league(playerId: string, boardId: string): Promise<Answer<"playerLeague">> {
    return this.#send("GET", `/players/${enc(playerId)}/leagues/${enc(boardId)}`, {});
  }

  /** A league period's cohorts, each with its players, a page at a time. */
  cohorts(boardId: string, query: Query<"leagueCohorts"> = {}): Promise<Answer<"leagueCohorts">> {
    return this.#send("GET", `/leaderboards/${enc(boardId)}/cohorts`, { query });
  }

  /** A game's plays, newest first, a page at a time. */
  gameSessions(gameId: string, query: Query<"gameSessions"> = {}): Promise<Answer<"gameSessions">> {
    return this.#send("GET", `/games/${enc(gameId)}/sessions`, { query });
  }

  /**
   * A guest account and its first tokens (`POST /players/guest`): no email, no input. Keep its
   * username and password (or its refresh token) to sign in again; `CognitoSignIn.signInAsGuest`
   * does it and keeps the tokens.
   */
  createGuest(): Promise<Answer<"createGuest", 201>> {
    return this.#send("POST", "/players/guest", {});
  }

  /** The signed-in player's own profile. */
  me(): Promise<Answer<"getMyProfile">> {
    return this.#send("GET", "/players/me", { auth: true });
  }

  /** Changes the signed-in player's profile. */
  updateMe(update: Schemas["ProfileUpdate"]): Promise<Answer<"putMyProfile">> {
    return this.#send("PUT", "/players/me", { body: update, auth: true });
  }

  /** One document of everything stored about the signed-in player (`nextCursor` leads to the next). */
  exportMe(cursor?: string): Promise<Answer<"exportMe">> {
    return this.#send("GET", "/players/me/export", { query: { cursor }, auth: true });
  }

  /**
   * The signed-in player's rewards from board closes, newest first, a page at a time
   * (`GET /players/me/rewards`); `status` `unclaimed` or `claimed` for only those.
   */
  rewards(query: Query<"myRewards"> = {}): Promise<Answer<"myRewards">> {
    return this.#send("GET", "/players/me/rewards", { query, auth: true });
  }

  /**
   * Claims one of the signed-in player's rewards, exactly once: the reward with its `claimedAt`;
   * a reward claimed before is `already_claimed`, one that is not theirs `not_found`.
   */
  claimReward(rewardId: string): Promise<Answer<"claimReward">> {
    return this.#send("POST", `/players/me/rewards/${enc(rewardId)}/claim`, { auth: true });
  }

  /** Erases the signed-in player everywhere: the receipt when the schedule finishes it (202), else nothing. */
  eraseMe(): Promise<Answer<"eraseMe", 202> | undefined> {
    return this.#send("DELETE", "/players/me", { auth: true });
  }

  async #send<T>(method: string, path: string, send: Send): Promise<T> {
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

function enc(segment: string): string {
  return encodeURIComponent(segment);
}
