// The admin client against a running stack (tests/js_client.rs passes API_URL, ADMIN_TOKEN and
// TOKEN, a player's): a board made, played and measured, a player banned and let back, an entry
// removed, each action on the player's audit trail; a player's token is refused.
import { test } from "node:test";
import assert from "node:assert/strict";
import { AdminClient } from "../dist/admin.js";
import { LeaderboardClient, LeaderboardError } from "../dist/index.js";

const { API_URL, ADMIN_TOKEN, TOKEN } = process.env;
const admin = new AdminClient({ baseUrl: API_URL, getToken: () => ADMIN_TOKEN });
const player = new LeaderboardClient({ baseUrl: API_URL, getToken: () => TOKEN });

test("an admin measures a board, bans, unbans and removes an entry, each on the audit trail", async () => {
  const board = await admin.createBoard({ leaderboardId: "js_admin", name: "JS admin", gameId: "jsgame" });
  assert.equal(board.leaderboardId, "js_admin");
  await player.postScore("js_admin", { score: 420, gameId: "jsgame" });
  const stats = await admin.boardStats("js_admin");
  assert.equal(stats.entries, 1);
  assert.equal(stats.lanes.length, 10);

  await admin.removeEntry("js_admin", "p_js");
  await assert.rejects(player.rank("js_admin", "p_js"), (e) => e instanceof LeaderboardError && e.status === 404);
  const ban = await admin.ban("p_js_admin_target", "test ban");
  assert.equal(ban.reason, "test ban");
  await admin.unban("p_js_admin_target");

  const trail = await admin.auditTrail({ playerId: "p_js_admin_target" });
  assert.deepEqual(
    trail.items.map((i) => i.action),
    ["unbanned", "banned"],
  );
  const removed = await admin.auditTrail({ playerId: "p_js" });
  assert.equal(removed.items[0]?.action, "entry_removed");
  assert.equal(removed.items[0]?.leaderboardId, "js_admin");
});

test("a player's token gets forbidden from the admin routes", async () => {
  const asPlayer = new AdminClient({ baseUrl: API_URL, getToken: () => TOKEN });
  await assert.rejects(asPlayer.boardStats("js_admin"), (e) => {
    assert.ok(e instanceof LeaderboardError);
    assert.equal(e.status, 403);
    assert.equal(e.code, "forbidden");
    return true;
  });
});
