// The admin routes of openapi.yaml, for an operator's tools (the console in ../../console, a
// studio's scripts): a method per route, typed by the generated types as `LeaderboardClient`'s
// are. Every call carries the token `getToken` gives, which must name the `admin` group; each
// action leaves the audit item its route writes. Games never need this file (it is its own
// entry point, `leaderboard-client/admin`, outside the game's bundle).
import type { components } from "./generated/api.js";
import { type Answer, type ClientOptions, type Query, Transport, enc } from "./transport.js";

type Schemas = components["schemas"];
/** A board's shape: entries, percentiles, distribution, the rank index's lag by lane. */
export type BoardStats = Schemas["BoardStats"];
/** One admin action of a trail. */
export type AuditItem = Schemas["AuditItem"];

/** The API's admin routes. */
export class AdminClient {
  readonly #transport: Transport;

  constructor(options: ClientOptions) {
    this.#transport = new Transport(options);
  }

  /** Creates a board (`POST /leaderboards`): the board as created; `already_exists` if its id is taken. */
  createBoard(board: Schemas["NewBoard"]): Promise<Answer<"createLeaderboard", 201>> {
    return this.#transport.send("POST", "/leaderboards", { body: board, auth: true });
  }

  /** Ends a board now; season close's next run closes it. */
  closeBoard(boardId: string): Promise<Answer<"closeLeaderboard">> {
    return this.#transport.send("POST", `/leaderboards/${enc(boardId)}/close`, { auth: true });
  }

  /** A board's shape from its rank index's upper levels (a few requests, whatever its size). */
  boardStats(boardId: string): Promise<BoardStats> {
    return this.#transport.send("GET", `/admin/leaderboards/${enc(boardId)}/stats`, { auth: true });
  }

  /** Removes a player's entry from an open board (moderation); ranks below move up. */
  removeEntry(boardId: string, playerId: string): Promise<void> {
    return this.#transport.send("DELETE", `/leaderboards/${enc(boardId)}/players/${enc(playerId)}`, { auth: true });
  }

  /** Bans a player: plays refused, entries on open boards removed. Repeat to finish one that failed part-way. */
  ban(playerId: string, reason: string): Promise<Answer<"banPlayer">> {
    return this.#transport.send("PUT", `/admin/players/${enc(playerId)}/ban`, { body: { reason }, auth: true });
  }

  /** Lifts a player's ban (done too when there was none). */
  unban(playerId: string): Promise<void> {
    return this.#transport.send("DELETE", `/admin/players/${enc(playerId)}/ban`, { auth: true });
  }

  /** Erases a player everywhere: the receipt while the schedule finishes it (202), else nothing. */
  erase(playerId: string): Promise<Answer<"erasePlayer", 202> | undefined> {
    return this.#transport.send("DELETE", `/admin/players/${enc(playerId)}`, { auth: true });
  }

  /** The one player who owns an email address, with their full profile. */
  playerByEmail(email: string): Promise<Answer<"adminPlayerByEmail">> {
    return this.#transport.send("GET", "/admin/players", { query: { email }, auth: true });
  }

  /** A player's (`playerId`, or `pseudonym` once erased) or a board's (`leaderboardId`) audit trail, newest first, a page at a time. */
  auditTrail(query: Query<"auditTrail">): Promise<Answer<"auditTrail">> {
    return this.#transport.send("GET", "/admin/audit", { query, auth: true });
  }

  /** Asks for a recount of every player's totals from their sessions. */
  startRecount(): Promise<Answer<"startRecount", 202>> {
    return this.#transport.send("POST", "/admin/recount", { auth: true });
  }

  /** The recount asked for last (`not_found` if none was). */
  recount(): Promise<Answer<"getRecount">> {
    return this.#transport.send("GET", "/admin/recount", { auth: true });
  }
}
