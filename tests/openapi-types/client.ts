// A small game client typed only by the types openapi-typescript generates from openapi.yaml
// (generated/api.d.ts, written by scripts/test): `tsc --noEmit` fails when a change to the
// document breaks what a generated client compiles against: a response it cannot type, an
// error code it cannot name, a request it cannot build.
import type { components, paths } from "./generated/api";

type Schemas = components["schemas"];
type Json<P extends keyof paths, M extends keyof paths[P], S extends number> =
  paths[P][M] extends { responses: { [K in S]: { content: { "application/json": infer T } } } }
    ? T
    : never;

/** Every error code the API sends, each handled: a new code in the document fails this switch. */
export function retryable(error: Schemas["Error"]): boolean {
  const code = error.error.code;
  switch (code) {
    case "unavailable":
    case "rate_limited":
    case "internal":
      return true;
    case "invalid_request":
    case "score_out_of_range":
    case "unauthorized":
    case "forbidden":
    case "banned":
    case "erased":
    case "not_found":
    case "method_not_allowed":
    case "already_exists":
    case "already_claimed":
    case "board_closed":
    case "board_full":
    case "not_joined":
    case "attempts_exhausted":
    case "idempotency_mismatch":
    case "payload_too_large":
      return false;
    default: {
      const unhandled: never = code;
      return unhandled;
    }
  }
}

/** A play on two boards, with the session id a client makes so that its retry is safe. */
export const play: Schemas["SessionRequest"] = {
  score: 4200,
  gameId: "space_race",
  leaderboardIds: ["daily_2026-11-29", "season_3"],
  sessionId: "01JDAW6K2Z8Q4T1V5X7Y9B3C5D",
  metadata: { level: 3, ship: "falcon" },
};

/** One type for both answers of the top-N route: a page, or friends with their freshness. */
export function describe(page: Json<"/leaderboards/{boardId}/scores", "get", 200>): string[] {
  return page.entries.map((e) => {
    const lag = e.rankExact === false ? ` (within ${e.rankLag ?? 0})` : "";
    return `#${e.rank} ${e.name}: ${e.score}${lag}`;
  });
}

/** A tournament's entry: joined, and the board's rules a client shows before the first play. */
export function entry(
  joined: Json<"/leaderboards/{boardId}/join", "post", 200>,
  board: Json<"/leaderboards/{boardId}", "get", 200>,
): string {
  const tries = board.maxAttempts == null ? "unlimited tries" : `${board.maxAttempts} tries`;
  const r = board.recurrence ?? "none";
  const reset = typeof r === "string" ? r : `${r.cron} (${r.timezone})`;
  return `${joined.playerId} joined ${joined.leaderboardId}: ${tries}, resets ${reset}`;
}

/** The caller's profile, or only their player id before they have one. */
export function greeting(me: Json<"/players/me", "get", 200>): string {
  return me.name === undefined ? `Welcome, ${me.playerId}` : `${me.name}: ${me.gamesPlayed ?? 0} games`;
}

/** What a play answered, board by board. */
export function ranks(answer: Json<"/sessions", "post", 200>): Array<[string, number | undefined]> {
  return answer.results.map((r) => [r.leaderboardId, r.rank]);
}

/** The rewards a player has still to claim, as a game would list them. */
export function toClaim(page: Json<"/players/me/rewards", "get", 200>): string[] {
  return page.rewards
    .filter((r) => r.claimedAt === null)
    .map((r) => `${r.reward}: #${r.rank} of ${r.playerCount} on ${r.leaderboardId}`);
}

/** A board as an admin creates it; optional fields may be null. */
export const board: Schemas["NewBoard"] = {
  leaderboardId: "season_3",
  name: "Season 3",
  endsAt: "2027-03-01T00:00:00Z",
  gameId: null,
};
