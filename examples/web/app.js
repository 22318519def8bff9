// A browser game's client of the leaderboard API, on the JS client (clients/js, bundled into
// leaderboard-client.js by the run command, or by `npm run web` at the repository's root).
//
// - Reads (top 10, a rank, around) need no token, and are sent without one: a GET with no
//   custom header is a "simple" request, so the browser sends no preflight for it.
// - A play goes through the client's queue: stored in IndexedDB before it is sent, so a play
//   made offline, or in a tab closed before the answer came, is sent when the page is back
//   online or opened again, and counts once (its sessionId names it).
// - The page decodes the token only to learn the player's id (its `sub`); it never trusts it:
//   the API verifies it.
import { IndexedDbStorage, LeaderboardClient, PlayQueue } from "./leaderboard-client.js";

const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);
const API = (query.get("api") || "http://127.0.0.1:3000").replace(/\/+$/, "");
$("api").textContent = API;
$("board").value = query.get("board") || "season_1";
const GAME_ID = query.get("game"); // optional: the play's gameId

const token = () => $("token").value.trim() || undefined;
const client = new LeaderboardClient({ baseUrl: API, getToken: token });

const unreachable = () =>
  navigator.onLine === false
    ? "This device is offline."
    : `No answer from ${API}: it is down, or its CORS origins do not list ${location.origin}.`;

// The player's id: the `sub` of the token (a JWT's middle part is base64url JSON).
function playerOf(jwt) {
  try {
    const part = jwt.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(part)).sub || null;
  } catch {
    return null;
  }
}

// Rows of entries. Names are players' own text: set as text, never as HTML.
function fill(table, entries, me) {
  table.tBodies[0].replaceChildren(
    ...entries.map((e) => {
      const tr = document.createElement("tr");
      if (e.playerId === me) tr.className = "me";
      for (const text of [e.rank, e.name ?? e.playerId, e.score]) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.append(td);
      }
      return tr;
    }),
  );
}

// A rank as honest as the API's answer: exact, or within ± rankLag while the rank index
// catches up with the latest plays.
function rankLine(e) {
  let line = `Rank ${e.rank}`;
  if (e.playerCount) line += ` of ${e.playerCount} (top ${e.topPercent} %)`;
  line += `, best ${e.score}`;
  if (e.rankExact) return line + " (exact)";
  if (e.rankLag === undefined || e.rankLag === null) return line + " (not yet exact)";
  if (e.rankLag >= 4294967295) return `Below the first 1,000, best ${e.score}`;
  return line + ` (within ± ${e.rankLag}: the last plays are still being counted)`;
}

function show(state, text) {
  $("status").dataset.state = state;
  $("status").textContent = text;
}

// What a refusal means to the player.
function explain(error) {
  switch (error.status) {
    case 0:
      return unreachable();
    case 401:
      return "The token is missing, expired or not valid for this API.";
    case 403:
      return `Refused (${error.code}): ${error.message}`;
    case 429:
      return `Too many plays: try again in ${error.retryAfter} s.`;
    default:
      return `${error.status} ${error.code}: ${error.message}`;
  }
}

async function load() {
  const board = $("board").value.trim();
  const me = playerOf(token() ?? "");
  try {
    fill($("top"), (await client.topPage(board, { limit: 10 })).entries, me);
    if (!me) return;
    let mine;
    try {
      mine = await client.rank(board, me);
    } catch (e) {
      if (e.code !== "not_found") throw e;
      $("me").textContent = `${me}: no score on this board yet.`;
      return fill($("around"), [], me);
    }
    // Both at once: the line and the rows around it come from the same moment.
    const around = await client.around(board, me, 2);
    fill($("around"), around.entries, me);
    $("me").textContent = `${me}: ${rankLine(mine)}`;
  } catch (e) {
    show("error", explain(e));
  }
}

// The queue's plays not applied yet, shown as they are stored.
function showQueue(pending) {
  $("queue").dataset.pending = String(pending.length);
  $("queued").textContent = pending.length
    ? `${pending.length} play(s) stored on this device, not applied yet:`
    : "Nothing waiting: every play made here is applied.";
  $("pending").replaceChildren(
    ...pending.map((q) => {
      const li = document.createElement("li");
      const boards = q.play.leaderboardIds.join(", ");
      li.textContent = `${q.play.score} on ${boards}, sent ${q.attempts} time(s), session ${q.play.sessionId}`;
      return li;
    }),
  );
}

const queue = new PlayQueue(client, {
  storage: new IndexedDbStorage(),
  onChange: showQueue,
  onRetry: (error, ms) => {
    const why = error.status === 401 ? "Paste a token to send it." : explain(error);
    show("waiting", `Kept on this device, sent again in ${Math.ceil(ms / 1000)} s or when back online. ${why}`);
  },
  onSettled: (s) => {
    if ("error" in s) return show("error", explain(s.error));
    const r = s.outcome.results[0];
    const again = s.outcome.duplicate ? " (already saved: this is its first answer)" : "";
    show("ok", `Saved ${s.play.play.score}: best ${r.best}, rank ${r.rank ?? "not read yet"}${again}.`);
    load();
  },
});

// The queue starts once there is a token: it sends what an earlier visit left unsent, and
// again whenever the browser is back online.
let started = false;
function signedIn() {
  if (!token()) return;
  if (started) return queue.flush();
  started = true;
  queue.start();
}

$("connect").addEventListener("submit", (event) => {
  event.preventDefault();
  load();
  signedIn();
});
$("play").addEventListener("submit", async (event) => {
  event.preventDefault();
  const play = { score: Number($("score").value), leaderboardIds: [$("board").value.trim()] };
  if (GAME_ID) play.gameId = GAME_ID;
  show("queued", "Stored on this device; sending…");
  signedIn();
  await queue.submit(play);
});
queue.pending().then(showQueue);
load();
