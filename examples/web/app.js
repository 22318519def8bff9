// A browser game's client of the leaderboard API, in plain JavaScript (no framework, no build).
//
// - Reads (top 10, a rank, around) need no token, and are sent without one: a GET with no
//   custom header is a "simple" request, so the browser sends no preflight for it.
// - A play is a POST with `authorization: Bearer <token>` and `content-type: application/json`;
//   the browser first asks the API (a preflight) whether this page's origin may send those, and
//   the API answers yes only for the origins its CORS settings list.
// - The page decodes the token only to learn the player's id (its `sub`); it never trusts it:
//   the API verifies it.
"use strict";

const $ = (id) => document.getElementById(id);
const query = new URLSearchParams(location.search);
$("api").value = query.get("api") || "http://127.0.0.1:3000";
$("board").value = query.get("board") || "season_1";
const GAME_ID = query.get("game"); // optional: the play's gameId

// One call of the API: {status, body, retryAfter}. Throws when no answer can be read: the
// API is down, or it did not allow this page's origin (CORS), which a browser reports the same.
async function call(method, path, body, extra = {}) {
  const headers = { ...extra };
  const token = $("token").value.trim();
  if (token && method !== "GET") headers.authorization = "Bearer " + token;
  if (body !== undefined) headers["content-type"] = "application/json";
  const resp = await fetch($("api").value.replace(/\/+$/, "") + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await resp.text();
  return {
    status: resp.status,
    body: text ? JSON.parse(text) : null,
    // Readable only because the API exposes it (CORS `ExposeHeaders`).
    retryAfter: Number(resp.headers.get("retry-after")) || 0,
  };
}

const unreachable = () =>
  `No answer from ${$("api").value}: it is down, or its CORS origins do not list ${location.origin}.`;

// The player's id: the `sub` of the token (a JWT's middle part is base64url JSON).
function playerOf(token) {
  try {
    const part = token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/");
    return JSON.parse(atob(part)).sub || null;
  } catch {
    return null;
  }
}

// A ULID (48 bits of milliseconds, 80 random bits, Crockford base32): a play's sessionId.
function ulid() {
  const digits = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";
  let time = Date.now();
  let out = "";
  for (let i = 0; i < 10; i++, time = Math.floor(time / 32)) out = digits[time % 32] + out;
  for (const byte of crypto.getRandomValues(new Uint8Array(16))) out += digits[byte % 32];
  return out;
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
  if (e.rankLag === undefined) return line + " (not yet exact)";
  if (e.rankLag >= 4294967295) return `Below the first 1,000, best ${e.score}`;
  return line + ` (within ± ${e.rankLag}: the last plays are still being counted)`;
}

function show(state, text) {
  $("status").dataset.state = state;
  $("status").textContent = text;
}

function explain(answer) {
  const error = answer.body?.error ?? {};
  switch (answer.status) {
    case 401:
      return "The token is missing, expired or not valid for this API.";
    case 403:
      return `Refused (${error.code}): ${error.message}`;
    case 429:
      return `Too many plays: try again in ${answer.retryAfter} s.`;
    default:
      return `${answer.status} ${error.code ?? ""}: ${error.message ?? ""}`;
  }
}

async function load() {
  const board = encodeURIComponent($("board").value.trim());
  const me = playerOf($("token").value.trim());
  try {
    const top = await call("GET", `/leaderboards/${board}/scores?limit=10`);
    if (top.status !== 200) return show("error", explain(top));
    fill($("top"), top.body.entries, me);
    if (!me) return;
    const path = `/leaderboards/${board}/players/${encodeURIComponent(me)}`;
    const mine = await call("GET", path);
    if (mine.status === 404) {
      $("me").textContent = `${me}: no score on this board yet.`;
      return fill($("around"), [], me);
    }
    if (mine.status !== 200) return show("error", explain(mine));
    $("me").textContent = `${me}: ${rankLine(mine.body)}`;
    const around = await call("GET", `${path}/around?n=2`);
    if (around.status === 200) fill($("around"), around.body.entries, me);
  } catch {
    show("error", unreachable());
  }
}

const sleep = (s) => new Promise((done) => setTimeout(done, s * 1000));

// Posts one play. Its sessionId is made once, before the first attempt: a retry after a 503
// (or no answer at all) sends the same one, so a play that was saved is answered as a
// duplicate, never counted twice.
async function post(score) {
  const body = { score, sessionId: ulid() };
  if (GAME_ID) body.gameId = GAME_ID;
  const board = encodeURIComponent($("board").value.trim());
  for (let attempt = 1; attempt <= 4; attempt++) {
    let answer = null;
    try {
      // The same key on every attempt too, for a client that cannot choose its sessionId.
      answer = await call("POST", `/leaderboards/${board}/scores`, body, {
        "idempotency-key": body.sessionId,
      });
    } catch {
      // No answer: the play may or may not have been saved. Retried as 503 is, unless this
      // page's origin is simply not allowed, which another attempt would not change.
      if (attempt === 4) return show("error", unreachable());
    }
    if (answer && answer.status === 200) {
      const r = answer.body;
      const again = r.duplicate ? " (already saved: this is its first answer)" : "";
      show("ok", `Saved ${r.score}: best ${r.best}, rank ${r.rank ?? "not read yet"}${again}.`);
      return load();
    }
    if (answer && answer.status !== 503) return show("error", explain(answer));
    const wait = answer?.retryAfter || attempt;
    show("retrying", `The service is busy: retrying the same play in ${wait} s.`);
    await sleep(wait);
  }
  show("error", "The service stayed busy: try again later (a saved play is never counted twice).");
}

$("connect").addEventListener("submit", (event) => {
  event.preventDefault();
  load();
});
$("play").addEventListener("submit", (event) => {
  event.preventDefault();
  post(Number($("score").value));
});
load();
