// The client object: a method per player-facing route of openapi.yaml, each typed by the types
// openapi-typescript generates from it (src/generated/api.ts), so the document and the client
// cannot drift. Refusals and lost answers are thrown as `LeaderboardError`.
import type { components } from "./generated/api.js";
import { type Answer, type ClientOptions, type Query, Transport, enc } from "./transport.js";

export type { ClientOptions } from "./transport.js";

type Schemas = components["schemas"];
/** A play on 1 to 10 boards (`POST /sessions`). */
export type Play = Schemas["SessionRequest"];
/** A play on one board (`POST /leaderboards/{boardId}/scores`). */
export type Score = Schemas["ScoreRequest"];
/** What a play did on each of its boards, with each rank and its freshness. */
export type PlayOutcome = Answer<"submitSession">;
/** One entry of a top-N page. */
export type ListedEntry = Schemas["ListedEntry"];

/** The leaderboard API, one method per player-facing route. */
export class LeaderboardClient {
  readonly #transport: Transport;

  constructor(options: ClientOptions) {
    this.#transport = new Transport(options);
  }

  /** Posts a play to its boards (`POST /sessions`), all or none. Resend the same `sessionId` on a retry. */
  postPlay(play: Play, idempotencyKey?: string): Promise<PlayOutcome> {
    return this.#transport.send("POST", "/sessions", {
      body: play,
      auth: true,
      ...(idempotencyKey === undefined ? {} : { headers: { "idempotency-key": idempotencyKey } }),
    });
  }

  /** Posts a play to one board (`POST /leaderboards/{boardId}/scores`). */
  postScore(boardId: string, score: Score, idempotencyKey?: string): Promise<Answer<"submitBoardScore">> {
    return this.#transport.send("POST", `/leaderboards/${enc(boardId)}/scores`, {
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
    return this.#transport.send("POST", `/leaderboards/${enc(boardId)}/join`, { auth: true });
  }

  /** The boards, newest first, a page at a time (`GET /leaderboards`). */
  boards(query: Query<"listLeaderboards"> = {}): Promise<Answer<"listLeaderboards">> {
    return this.#transport.send("GET", "/leaderboards", { query });
  }

  /** A board's settings and state. */
  board(boardId: string): Promise<Answer<"getLeaderboard">> {
    return this.#transport.send("GET", `/leaderboards/${enc(boardId)}`, {});
  }

  /** One page of a board's top-N (`nextCursor` leads to the next). */
  topPage(boardId: string, query: { limit?: number; cursor?: string } = {}): Promise<Answer<"topScores">> {
    return this.#transport.send("GET", `/leaderboards/${enc(boardId)}/scores`, { query });
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
    return this.#transport.send("GET", `/leaderboards/${enc(boardId)}/scores`, { query: { playerIds: playerIds.join(",") } });
  }

  /** A player's entry and rank on a board, with how fresh the rank is. */
  rank(boardId: string, playerId: string): Promise<Answer<"playerRank">> {
    return this.#transport.send("GET", `/leaderboards/${enc(boardId)}/players/${enc(playerId)}`, {});
  }

  /** Up to `n` entries above and below a player. */
  around(boardId: string, playerId: string, n?: number): Promise<Answer<"aroundPlayer">> {
    return this.#transport.send("GET", `/leaderboards/${enc(boardId)}/players/${enc(playerId)}/around`, { query: { n } });
  }

  /** A player's public profile. */
  player(playerId: string): Promise<Answer<"getPlayer">> {
    return this.#transport.send("GET", `/players/${enc(playerId)}`, {});
  }

  /** A player's entries, a page at a time. */
  playerScores(playerId: string, query: Query<"playerScores"> = {}): Promise<Answer<"playerScores">> {
    return this.#transport.send("GET", `/players/${enc(playerId)}/scores`, { query });
  }

  /** A player's results on closed boards, a page at a time. */
  playerResults(playerId: string, query: Query<"playerResults"> = {}): Promise<Answer<"playerResults">> {
    return this.#transport.send("GET", `/players/${enc(playerId)}/results`, { query });
  }

  /** A player's recent plays, a page at a time. */
  playerSessions(playerId: string, query: Query<"playerSessions"> = {}): Promise<Answer<"playerSessions">> {
    return this.#transport.send("GET", `/players/${enc(playerId)}/sessions`, { query });
  }

  /** One play of a player's. */
  session(playerId: string, sessionId: string): Promise<Answer<"getSession">> {
    return this.#transport.send("GET", `/players/${enc(playerId)}/sessions/${enc(sessionId)}`, {});
  }

  /** A player's standing in a league's current period: tier, cohort, rank, the ranks that move. */
  league(playerId: string, boardId: string): Promise<Answer<"playerLeague">> {
    return this.#transport.send("GET", `/players/${enc(playerId)}/leagues/${enc(boardId)}`, {});
  }

  /** A league period's cohorts, each with its players, a page at a time. */
  cohorts(boardId: string, query: Query<"leagueCohorts"> = {}): Promise<Answer<"leagueCohorts">> {
    return this.#transport.send("GET", `/leaderboards/${enc(boardId)}/cohorts`, { query });
  }

  /** A game's plays, newest first, a page at a time. */
  gameSessions(gameId: string, query: Query<"gameSessions"> = {}): Promise<Answer<"gameSessions">> {
    return this.#transport.send("GET", `/games/${enc(gameId)}/sessions`, { query });
  }

  /**
   * A guest account and its first tokens (`POST /players/guest`): no email, no input. Keep its
   * username and password (or its refresh token) to sign in again; `CognitoSignIn.signInAsGuest`
   * does it and keeps the tokens.
   */
  createGuest(): Promise<Answer<"createGuest", 201>> {
    return this.#transport.send("POST", "/players/guest", {});
  }

  /** The signed-in player's own profile. */
  me(): Promise<Answer<"getMyProfile">> {
    return this.#transport.send("GET", "/players/me", { auth: true });
  }

  /** Changes the signed-in player's profile. */
  updateMe(update: Schemas["ProfileUpdate"]): Promise<Answer<"putMyProfile">> {
    return this.#transport.send("PUT", "/players/me", { body: update, auth: true });
  }

  /** One document of everything stored about the signed-in player (`nextCursor` leads to the next). */
  exportMe(cursor?: string): Promise<Answer<"exportMe">> {
    return this.#transport.send("GET", "/players/me/export", { query: { cursor }, auth: true });
  }

  /**
   * The signed-in player's rewards from board closes, newest first, a page at a time
   * (`GET /players/me/rewards`); `status` `unclaimed` or `claimed` for only those.
   */
  rewards(query: Query<"myRewards"> = {}): Promise<Answer<"myRewards">> {
    return this.#transport.send("GET", "/players/me/rewards", { query, auth: true });
  }

  /**
   * Claims one of the signed-in player's rewards, exactly once: the reward with its `claimedAt`;
   * a reward claimed before is `already_claimed`, one that is not theirs `not_found`.
   */
  claimReward(rewardId: string): Promise<Answer<"claimReward">> {
    return this.#transport.send("POST", `/players/me/rewards/${enc(rewardId)}/claim`, { auth: true });
  }

  /** Erases the signed-in player everywhere: the receipt when the schedule finishes it (202), else nothing. */
  eraseMe(): Promise<Answer<"eraseMe", 202> | undefined> {
    return this.#transport.send("DELETE", "/players/me", { auth: true });
  }
}
