// The client against a running stack (tests/js_client.rs starts the local one and passes
// API_URL, TOKEN, OTHER_TOKEN, BOARD, an `increment` board with maxScore 1,000,000, LEAGUE, a
// league board of cohorts of 2, RACE, a board ranked by points, then the faster `time`, CUP, a
// tournament of one player, and PRIZE, a closed board whose winner, p_js, got `gold`).
import { test } from "node:test";
import assert from "node:assert/strict";
import { LeaderboardClient, LeaderboardError, newSessionId } from "../dist/index.js";

const { API_URL, TOKEN, OTHER_TOKEN, BOARD, LEAGUE, RACE, CUP, PRIZE } = process.env;
const client = new LeaderboardClient({ baseUrl: API_URL, getToken: () => TOKEN });
const other = new LeaderboardClient({ baseUrl: API_URL, getToken: () => OTHER_TOKEN });

test("a play resent with its sessionId counts once", async () => {
  const sessionId = newSessionId();
  assert.match(sessionId, /^[0-9A-HJKMNP-TV-Z]{26}$/);
  const play = { score: 700, leaderboardIds: [BOARD], sessionId };
  const first = await client.postPlay(play);
  const again = await client.postPlay(play);
  assert.equal(first.sessionId, sessionId);
  assert.equal(again.sessionId, sessionId);
  assert.equal(first.duplicate, false);
  assert.equal(again.duplicate, true);
  assert.deepEqual(
    again.results.map((r) => r.leaderboardId),
    [BOARD],
  );
  // On an increment board a second application would have made 1,400.
  const ranked = await client.rank(BOARD, "p_js");
  assert.equal(ranked.score, 700);
  assert.equal(ranked.rank, 1);
  assert.equal(typeof ranked.rankExact, "boolean");
});

test("a refused play is a typed error and writes nothing", async () => {
  const sessionId = newSessionId();
  await assert.rejects(
    other.postPlay({ score: 2_000_000, leaderboardIds: [BOARD], sessionId }),
    (e) => {
      assert.ok(e instanceof LeaderboardError);
      assert.equal(e.status, 400);
      assert.equal(e.code, "score_out_of_range");
      assert.equal(e.retryable, false);
      return true;
    },
  );
  await assert.rejects(other.rank(BOARD, "p_js_other"), (e) => e.code === "not_found");
});

test("the top-N iterates every page in rank order", async () => {
  await other.postScore(BOARD, { score: 300, sessionId: newSessionId() });
  const names = [];
  for await (const entry of client.top(BOARD, 1)) names.push([entry.rank, entry.playerId]);
  assert.deepEqual(names, [
    [1, "p_js"],
    [2, "p_js_other"],
  ]);
  const friends = await client.friends(BOARD, ["p_js_other"]);
  assert.deepEqual(
    friends.entries.map((e) => [e.playerId, e.rank]),
    [["p_js_other", 2]],
  );
});

test("a league play is seated in a cohort the player then reads", async () => {
  const played = await client.postPlay({ score: 9, leaderboardIds: [LEAGUE], sessionId: newSessionId() });
  const result = played.results[0];
  assert.equal(result.leaderboardId, LEAGUE);
  assert.equal(result.cohortId, `${LEAGUE}.low.1`);
  assert.equal(result.tier, "low");
  const standing = await client.league("p_js", LEAGUE);
  assert.deepEqual(
    [standing.tier, standing.cohortId, standing.rank, standing.promoteRanks, standing.relegateRanks],
    ["low", `${LEAGUE}.low.1`, 1, [1, 1], null],
  );
  const page = await client.cohorts(LEAGUE, { tier: "low" });
  assert.deepEqual(
    page.cohorts.map((c) => [c.cohortId, c.members]),
    [[`${LEAGUE}.low.1`, 1]],
  );
  await assert.rejects(other.league("p_js_other", LEAGUE), (e) => e.code === "not_found");
});

test("a board's tiebreak column ranks equal scores and shows each entry's value", async () => {
  await client.postPlay({ score: 10, subscores: { time: 61_250 }, leaderboardIds: [RACE], sessionId: newSessionId() });
  await other.postScore(RACE, { score: 10, subscores: { time: 59_800 }, sessionId: newSessionId() });
  const top = [];
  for await (const entry of client.top(RACE, 10)) top.push([entry.rank, entry.playerId, entry.subscores]);
  assert.deepEqual(top, [
    [1, "p_js_other", { time: 59_800 }],
    [2, "p_js", { time: 61_250 }],
  ]);
  const own = await client.rank(RACE, "p_js");
  assert.deepEqual([own.rank, own.subscores], [2, { time: 61_250 }]);
  await assert.rejects(
    client.postPlay({ score: 11, leaderboardIds: [RACE], sessionId: newSessionId() }),
    (e) => e.code === "invalid_request" && /time/.test(e.message),
  );
});

test("a tournament takes a joined player's plays within their tries, and only its entrants", async () => {
  const cup = await client.board(CUP);
  assert.deepEqual(cup.recurrence, { cron: "0 18 * * FRI", timezone: "Europe/Berlin" });
  assert.equal(cup.joinRequired, true);
  await assert.rejects(
    client.postScore(CUP, { score: 5, sessionId: newSessionId() }),
    (e) => e.code === "not_joined" && e.status === 403 && !e.retryable,
  );
  assert.deepEqual(await client.join(CUP), { leaderboardId: CUP, playerId: "p_js", joined: true });
  assert.equal((await client.join(CUP)).joined, true, "joining again answers the same");
  const played = await client.postScore(CUP, { score: 5, sessionId: newSessionId() });
  assert.equal(played.rank, 1);
  await assert.rejects(
    client.postScore(CUP, { score: 6, sessionId: newSessionId() }),
    (e) => e.code === "attempts_exhausted" && e.status === 403,
  );
  await assert.rejects(other.join(CUP), (e) => e.code === "board_full" && e.status === 409);
});

test("a player claims a reward once, and only their own", async () => {
  const page = await client.rewards({ status: "unclaimed" });
  assert.equal(page.rewards.length, 1);
  const [gold] = page.rewards;
  assert.deepEqual(
    [gold.leaderboardId, gold.rank, gold.reward, gold.claimedAt],
    [PRIZE, 1, "gold", null],
  );
  await assert.rejects(other.claimReward(gold.rewardId), (e) => e.code === "not_found" && e.status === 404);
  const claimed = await client.claimReward(gold.rewardId);
  assert.equal(claimed.rewardId, gold.rewardId);
  assert.equal(typeof claimed.claimedAt, "string");
  await assert.rejects(
    client.claimReward(gold.rewardId),
    (e) => e.code === "already_claimed" && e.status === 409 && !e.retryable,
  );
  assert.deepEqual((await client.rewards({ status: "unclaimed" })).rewards, []);
  assert.equal((await client.rewards({ status: "claimed" })).rewards[0].claimedAt, claimed.claimedAt);
});

test("no answer is a retryable network error", async () => {
  const offline = new LeaderboardClient({
    baseUrl: API_URL,
    getToken: () => TOKEN,
    fetch: () => Promise.reject(new TypeError("fetch failed")),
  });
  await assert.rejects(offline.board(BOARD), (e) => {
    assert.equal(e.code, "network");
    assert.equal(e.status, 0);
    assert.equal(e.retryable, true);
    return true;
  });
});
