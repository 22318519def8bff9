// The play queue: a play is stored before it is sent and removed only once an answer settles it,
// so a play made offline, or whose answer was lost, is applied once when the queue replays it.
// Once is the API's promise, not the queue's: a play is named by its `sessionId` and
// `Idempotency-Key`, made here once and resent unchanged, and the API answers a repeat with the
// first outcome and writes nothing.
import type { LeaderboardClient, Play, PlayOutcome } from "./client.js";
import { LeaderboardError } from "./errors.js";
import { newSessionId } from "./ulid.js";

/** A play as the queue keeps it. */
export interface QueuedPlay {
  play: Play & { sessionId: string };
  idempotencyKey: string;
  /** When it was queued (epoch ms). */
  queuedAt: number;
  /** Sends that got no settling answer so far. */
  attempts: number;
}

/** Where the queue keeps its plays: kept whole on every change, oldest first. */
export interface QueueStorage {
  load(): Promise<QueuedPlay[]>;
  save(plays: QueuedPlay[]): Promise<void>;
}

/** A storage for the process's lifetime only. */
export class MemoryStorage implements QueueStorage {
  #plays: QueuedPlay[] = [];
  async load(): Promise<QueuedPlay[]> {
    return this.#plays.map((p) => structuredClone(p));
  }
  async save(plays: QueuedPlay[]): Promise<void> {
    this.#plays = plays.map((p) => structuredClone(p));
  }
}

/** What became of a play: applied (its outcome), or refused for good (an error that retrying cannot mend). */
export type Settled =
  | { play: QueuedPlay; outcome: PlayOutcome }
  | { play: QueuedPlay; error: LeaderboardError };

/** How the queue sends and waits. */
export interface QueueOptions {
  storage?: QueueStorage;
  /** Called once per play when an answer settles it. */
  onSettled?: (settled: Settled) => void;
  /** Called with the plays not settled yet, oldest first, each time the storage has them. */
  onChange?: (pending: readonly QueuedPlay[]) => void;
  /** Called when a send got no settling answer and the queue will try again in `waitMs`. */
  onRetry?: (error: LeaderboardError, waitMs: number) => void;
  /** The first retry's wait, doubled at each retry up to `maxDelayMs`, unless `Retry-After` says. */
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** Runs `retry` after `ms` (a timer by default); a test passes its own. */
  schedule?: (retry: () => void, ms: number) => void;
}

/** Plays stored before they are sent, sent oldest first, each until an answer settles it. */
export class PlayQueue {
  readonly #client: LeaderboardClient;
  readonly #storage: QueueStorage;
  readonly #options: QueueOptions;
  #plays: QueuedPlay[] | undefined;
  #flushing: Promise<void> | undefined;
  #retryAt: number | undefined;
  #saved: Promise<void> = Promise.resolve();

  constructor(client: LeaderboardClient, options: QueueOptions = {}) {
    this.#client = client;
    this.#storage = options.storage ?? new MemoryStorage();
    this.#options = options;
  }

  /** The plays not settled yet, oldest first. */
  async pending(): Promise<QueuedPlay[]> {
    return [...(await this.#load())];
  }

  /**
   * Queues `play` (its `sessionId` made now unless it has one) and stores it before anything is
   * sent, then sends what is queued. Answers the play as stored.
   */
  async submit(play: Play): Promise<QueuedPlay> {
    const sessionId = play.sessionId ?? newSessionId();
    const queued: QueuedPlay = {
      play: { ...play, sessionId },
      idempotencyKey: sessionId,
      queuedAt: Date.now(),
      attempts: 0,
    };
    const plays = await this.#load();
    plays.push(queued);
    await this.#save(plays);
    void this.flush();
    return queued;
  }

  /**
   * Replays what is stored, oldest first, now and each time `target` says the platform is back
   * online (its `online` event: a browser's window, by default `globalThis`). Call it once the
   * player is signed in. Answers a function that stops listening.
   */
  start(target: Pick<EventTarget, "addEventListener" | "removeEventListener"> | undefined = onlineTarget()): () => void {
    const online = () => void this.flush();
    target?.addEventListener("online", online);
    void this.flush();
    return () => target?.removeEventListener("online", online);
  }

  /**
   * Sends the queued plays, oldest first, until one gets no settling answer (no answer, 503,
   * 429, 500, 401): that one and the rest stay, and a retry is scheduled (after `Retry-After` when
   * the API said, else an exponential backoff). One flush at a time; a second call waits for it.
   */
  flush(): Promise<void> {
    this.#flushing ??= this.#flush().finally(() => {
      this.#flushing = undefined;
    });
    return this.#flushing;
  }

  async #flush(): Promise<void> {
    const plays = await this.#load();
    while (plays.length > 0) {
      const next = plays[0]!;
      let settled: Settled;
      try {
        settled = { play: next, outcome: await this.#client.postPlay(next.play, next.idempotencyKey) };
      } catch (e) {
        const error =
          e instanceof LeaderboardError ? e : new LeaderboardError(0, "network", String(e));
        // A 401 is kept too: the play is sound, its token is missing or expired (a player
        // offline for an hour), and `getToken` gives a fresh one by the next try.
        if (error.retryable || error.status === 401) {
          next.attempts += 1;
          await this.#save(plays);
          this.#scheduleRetry(error, next.attempts);
          return;
        }
        settled = { play: next, error };
      }
      plays.shift();
      await this.#save(plays);
      this.#options.onSettled?.(settled);
    }
  }

  #scheduleRetry(error: LeaderboardError, attempts: number): void {
    const base = this.#options.baseDelayMs ?? 1_000;
    const max = this.#options.maxDelayMs ?? 60_000;
    const ms =
      error.retryAfter !== undefined
        ? error.retryAfter * 1000
        : Math.min(max, base * 2 ** Math.min(attempts - 1, 30));
    const now = Date.now();
    if (this.#retryAt !== undefined && this.#retryAt <= now + ms) {
      this.#options.onRetry?.(error, Math.max(0, this.#retryAt - now));
      return;
    }
    this.#options.onRetry?.(error, ms);
    const at = now + ms;
    this.#retryAt = at;
    const retry = () => {
      this.#retryAt = undefined;
      void this.flush();
    };
    if (this.#options.schedule) {
      this.#options.schedule(retry, ms);
    } else {
      const timer = setTimeout(retry, ms) as unknown as { unref?: () => void };
      // A Node process is not kept alive by a retry alone.
      timer.unref?.();
    }
  }

  /** Saves `plays` as they are now, after the saves before it: the storage sees them in order. */
  #save(plays: QueuedPlay[]): Promise<void> {
    const now = plays.map((p) => ({ ...p }));
    this.#saved = this.#saved
      .catch(() => {})
      .then(() => this.#storage.save(now))
      .then(() => this.#options.onChange?.(now));
    return this.#saved;
  }

  async #load(): Promise<QueuedPlay[]> {
    this.#plays ??= await this.#storage.load();
    return this.#plays;
  }
}

/** Where a browser says it is back online; none in Node. */
function onlineTarget(): Pick<EventTarget, "addEventListener" | "removeEventListener"> | undefined {
  const g = globalThis as Partial<EventTarget>;
  return typeof g.addEventListener === "function" ? (g as EventTarget) : undefined;
}
