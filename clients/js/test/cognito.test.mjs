// Signing in to a Cognito user pool as a game does (moto's on loopback: tests/js_client.rs
// passes COGNITO_URL and COGNITO_CLIENT, an app client made from the template's), and calling
// the API with the pool's tokens: the local stack verifies them as API Gateway would.
import { test } from "node:test";
import assert from "node:assert/strict";
import { LeaderboardClient, LeaderboardError } from "../dist/index.js";
import { CognitoSignIn } from "../dist/cognito.js";

const { API_URL, BOARD, COGNITO_URL, COGNITO_CLIENT } = process.env;
const PASSWORD = "Correct-Horse-9-Battery";

/** The claims of a JWT (the test reads its own tokens). */
const claims = (token) => JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());

/** A sign-in with a clock the test moves, counting Cognito's calls by operation. */
function signIn(extra = {}) {
  const calls = {};
  let now = Date.now();
  const counted = (url, init) => {
    const op = init.headers["x-amz-target"].split(".").pop();
    calls[op] = (calls[op] ?? 0) + 1;
    return fetch(url, init);
  };
  const session = new CognitoSignIn({
    clientId: COGNITO_CLIENT,
    endpoint: COGNITO_URL,
    fetch: counted,
    now: () => now,
    ...extra,
  });
  return { session, calls, later: (ms) => (now += ms) };
}

test("a player signs up, signs in and plays with the pool's token, renewed before it expires", async () => {
  const kept = [];
  const { session, calls, later } = signIn({ onTokens: (t) => kept.push(t) });
  await session.signUp("cora@example.com", PASSWORD);
  await session.confirmSignUp("cora@example.com", "123456");
  const tokens = await session.signIn("cora@example.com", PASSWORD);
  const sub = claims(tokens.idToken).sub;
  const client = new LeaderboardClient({ baseUrl: API_URL, getToken: session.getToken });
  const me = await client.updateMe({ name: "Cora" });
  assert.equal(me.playerId, sub);
  const played = await client.postPlay({ score: 30, leaderboardIds: [BOARD] });
  assert.equal(played.playerId, sub);

  // Within a minute of expiry the token is renewed once, however many requests ask at once.
  assert.equal(calls.InitiateAuth, 1);
  later(3600_000 - 30_000);
  const renewed = await Promise.all([session.getToken(), session.getToken(), session.getToken()]);
  assert.equal(calls.InitiateAuth, 2, "one renewal for three requests");
  assert.equal(new Set(renewed).size, 1);
  assert.notEqual(renewed[0], tokens.idToken);
  assert.equal(claims(renewed[0]).sub, sub);
  assert.equal((await client.me()).name, "Cora");
  // The refresh token kept through the renewal, as the game would store it.
  assert.equal(kept.length, 2);
  assert.equal(kept[1].refreshToken, tokens.refreshToken);

  // A game started again signs in with the kept refresh token, no password.
  const { session: again } = signIn();
  await again.restore(kept[1].refreshToken);
  const back = new LeaderboardClient({ baseUrl: API_URL, getToken: again.getToken });
  assert.equal((await back.me()).playerId, sub);

  // An address linked to the account: signing in with it is the same player.
  await session.linkEmail("cora.new@example.com");
  const { session: linked } = signIn();
  const relinked = await linked.signIn("cora.new@example.com", PASSWORD);
  assert.equal(claims(relinked.idToken).sub, sub);

  session.signOut();
  assert.equal(await session.getToken(), undefined);
  assert.equal(kept.at(-1), undefined);
});

test("a wrong password is refused as unauthorized, and nothing is kept", async () => {
  const { session } = signIn();
  await session.signUp("dan@example.com", PASSWORD);
  await session.confirmSignUp("dan@example.com", "123456");
  await assert.rejects(session.signIn("dan@example.com", "not-it"), (e) => {
    assert.ok(e instanceof LeaderboardError);
    assert.equal(e.code, "unauthorized");
    assert.match(e.message, /NotAuthorizedException/);
    return true;
  });
  assert.equal(session.tokens, undefined);
  assert.equal(await session.getToken(), undefined);
});

test("a guest signs in with one call, plays, and keeps its id after linking an email", async () => {
  const kept = [];
  const { session } = signIn({ onTokens: (t) => kept.push(t) });
  const anonymous = new LeaderboardClient({ baseUrl: API_URL });
  const guest = await session.signInAsGuest(anonymous);
  assert.match(guest.username, /^guest-[0-9a-f]{32}@guests\.invalid$/);
  assert.equal(claims(await session.getToken()).sub, guest.playerId);
  assert.equal(kept.length, 1);
  const client = new LeaderboardClient({ baseUrl: API_URL, getToken: session.getToken });
  const played = await client.postPlay({ score: 12, leaderboardIds: [BOARD] });
  assert.equal(played.playerId, guest.playerId);
  // Later, an address: the account signs in with it and the kept password, as the same player.
  await session.linkEmail("guest.linked@example.com");
  const { session: back } = signIn();
  const tokens = await back.signIn("guest.linked@example.com", guest.password);
  assert.equal(claims(tokens.idToken).sub, guest.playerId);
  assert.equal((await client.rank(BOARD, guest.playerId)).score, 12);
});
