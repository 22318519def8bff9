// ULIDs for plays: a client makes a play's `sessionId` once and resends it on every retry, so
// that the API applies the play once however often it arrives.

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

/** A new ULID: 48 bits of the time in milliseconds, then 80 random bits, in Crockford base 32. */
export function newSessionId(now: number = Date.now()): string {
  let time = "";
  let t = Math.max(0, Math.floor(now));
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD.charAt(t % 32) + time;
    t = Math.floor(t / 32);
  }
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  let random = "";
  for (const b of bytes) random += CROCKFORD.charAt(b % 32);
  return time + random;
}
