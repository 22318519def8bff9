// The play queue against a running stack through a loopback proxy that can be down (it closes
// every connection), drop answers (it forwards the request, then closes the connection without
// an answer), or answer 429 itself. tests/js_client.rs passes API_URL, QUEUE_TOKEN and BOARD (an
// `increment` board, so a play applied twice would show in the sum).
import { test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LeaderboardClient, PlayQueue } from "../dist/index.js";
import { FileStorage } from "../dist/node.js";

const { API_URL, QUEUE_TOKEN, BOARD } = process.env;
const PLAYER = "p_queue";

/** A proxy to API_URL on a port of its own; `mode` is "up", "down", "drop" or "429". */
async function proxy() {
  const state = { mode: "up", forwarded: 0 };
  const server = http.createServer(async (req, res) => {
    if (state.mode === "down") return req.socket.destroy();
    if (state.mode === "429") {
      res.writeHead(429, { "content-type": "application/json", "retry-after": "7" });
      return res.end(JSON.stringify({ error: { code: "rate_limited", message: "slow down" } }));
    }
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const headers = { ...req.headers };
    delete headers.host;
    delete headers.connection;
    const answer = await fetch(API_URL + req.url, {
      method: req.method,
      headers,
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    const body = Buffer.from(await answer.arrayBuffer());
    state.forwarded += 1;
    if (state.mode === "drop") return req.socket.destroy();
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(body);
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  state.url = `http://127.0.0.1:${server.address().port}`;
  state.close = () => {
    server.closeAllConnections();
    return new Promise((ok) => server.close(ok));
  };
  return state;
}

/**
 * A queue sending through a new proxy (closed after test `t`), with the waits it schedules
 * (never run: the test flushes) and the plays it settles.
 */
async function watchedQueue(t) {
  const p = await proxy();
  t.after(p.close);
  const client = new LeaderboardClient({ baseUrl: p.url, getToken: () => QUEUE_TOKEN });
  const waits = [];
  const settled = [];
  const queue = new PlayQueue(client, {
    schedule: (_retry, ms) => waits.push(ms),
    onSettled: (s) => settled.push(s),
  });
  return { p, queue, waits, settled };
}

const direct = new LeaderboardClient({ baseUrl: API_URL, getToken: () => QUEUE_TOKEN });
async function sum() {
  try {
    return (await direct.rank(BOARD, PLAYER)).score;
  } catch (e) {
    if (e.code === "not_found") return 0;
    throw e;
  }
}

test("plays queued while the API is unreachable, or whose answer was lost, apply once each", async (t) => {
  const { p, queue, waits, settled } = await watchedQueue(t);
  const before = await sum();
  p.mode = "down";
  let expected = 0;
  for (let i = 1; i <= 30; i++) {
    await queue.submit({ score: i, leaderboardIds: [BOARD] });
    expected += i;
  }
  await queue.flush();
  assert.equal((await queue.pending()).length, 30, "nothing lost while down");
  assert.equal(settled.length, 0);
  assert.ok(waits.length >= 1 && waits.every((ms) => ms > 0), `backoff ${waits}`);
  // The answers are lost: every play reaches the API, the client sees no answer.
  p.mode = "drop";
  await queue.flush();
  assert.equal(p.forwarded, 1, "the oldest is sent, its answer lost, the rest wait");
  assert.equal((await queue.pending()).length, 30);
  p.mode = "up";
  await queue.flush();
  assert.equal((await queue.pending()).length, 0);
  assert.equal(settled.length, 30);
  assert.ok(settled.every((s) => "outcome" in s));
  assert.equal(settled.filter((s) => s.outcome.duplicate).length, 1, "the lost answer's play");
  assert.equal(await sum(), before + expected, "each play counted once");
  // The player's total of plays, kept by the stream projector a little later: 30, not 31.
  let played;
  for (let i = 0; i < 600 && played !== 30; i++) {
    played = (await direct.player(PLAYER).catch(() => ({}))).gamesPlayed;
    if (played !== 30) await new Promise((ok) => setTimeout(ok, 100));
  }
  assert.equal(played, 30, "gamesPlayed counts each play once");
});

test("a 429 waits Retry-After, and a 400 is reported and dropped", async (t) => {
  const { p, queue, waits, settled } = await watchedQueue(t);
  const before = await sum();
  p.mode = "429";
  await queue.submit({ score: 5, leaderboardIds: [BOARD] });
  await queue.flush();
  assert.deepEqual(waits, [7000]);
  p.mode = "up";
  await queue.submit({ score: 2_000_000, leaderboardIds: [BOARD] });
  await queue.flush();
  assert.equal((await queue.pending()).length, 0);
  assert.equal(settled.length, 2);
  assert.ok("outcome" in settled[0]);
  assert.equal(settled[1].error.code, "score_out_of_range");
  assert.equal(await sum(), before + 5);
});

test("the queue survives a restart of the process (file storage)", async (t) => {
  const p = await proxy();
  t.after(p.close);
  const path = join(await mkdtemp(join(tmpdir(), "lb-queue-")), "plays.jsonl");
  const client = new LeaderboardClient({ baseUrl: p.url, getToken: () => QUEUE_TOKEN });
  const before = await sum();
  p.mode = "down";
  const first = new PlayQueue(client, { storage: new FileStorage(path), schedule: () => {} });
  for (const score of [11, 22, 33]) await first.submit({ score, leaderboardIds: [BOARD] });
  await first.flush();
  // A new queue over the same file (the game restarted) finds them and sends them.
  p.mode = "up";
  const second = new PlayQueue(client, { storage: new FileStorage(path), schedule: () => {} });
  const found = await second.pending();
  assert.deepEqual(
    found.map((q) => q.play.score),
    [11, 22, 33],
  );
  await second.flush();
  assert.equal((await second.pending()).length, 0);
  assert.deepEqual(await new FileStorage(path).load(), []);
  assert.equal(await sum(), before + 66);
});

/** An `online` event source that counts its listeners. */
function onlineEvents() {
  const listeners = new Set();
  return {
    addEventListener: (type, f) => type === "online" && listeners.add(f),
    removeEventListener: (type, f) => type === "online" && listeners.delete(f),
    dispatchEvent: () => listeners.forEach((f) => f()),
    listening: () => listeners.size,
  };
}

test("started, the queue replays on an online event; a 401 keeps the play until a token comes", async (t) => {
  const p = await proxy();
  t.after(p.close);
  let token;
  const client = new LeaderboardClient({ baseUrl: p.url, getToken: () => token });
  const waits = [];
  const changes = [];
  const settled = [];
  const queue = new PlayQueue(client, {
    schedule: () => {},
    onRetry: (error, ms) => waits.push([error.status, ms]),
    onChange: (pending) => changes.push(pending.length),
    onSettled: (s) => settled.push(s),
  });
  const before = await sum();
  // No token yet (the player signs in later): refused with 401, kept.
  await queue.submit({ score: 7, leaderboardIds: [BOARD] });
  await queue.flush();
  assert.deepEqual(await queue.pending().then((q) => q.map((x) => x.attempts)), [1]);
  assert.deepEqual(waits, [[401, 1000]]);
  assert.equal(settled.length, 0);
  // Signed in and back online: the `online` event sends it.
  token = QUEUE_TOKEN;
  const target = onlineEvents();
  const stop = queue.start(target);
  await queue.flush(); // the one start() began
  p.mode = "down";
  await queue.submit({ score: 8, leaderboardIds: [BOARD] });
  await queue.flush();
  assert.equal((await queue.pending()).length, 1);
  p.mode = "up";
  target.dispatchEvent();
  await queue.flush();
  assert.equal((await queue.pending()).length, 0);
  assert.deepEqual(settled.map((s) => s.outcome.results[0].leaderboardId), [BOARD, BOARD]);
  assert.equal(await sum(), before + 15);
  // Every change of what is stored was reported: queued, tried, sent; queued, tried, sent.
  assert.deepEqual(changes, [1, 1, 0, 1, 1, 0]);
  // Stopped, it listens no more.
  assert.equal(target.listening(), 1);
  stop();
  assert.equal(target.listening(), 0);
});
