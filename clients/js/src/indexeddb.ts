// The play queue's storage in a browser: IndexedDB, so plays queued offline survive a closed tab
// or a reload, and are replayed when the game starts again.
import type { QueuedPlay, QueueStorage } from "./queue.js";

const STORE = "plays";

/**
 * The queue in an IndexedDB database of this page's origin, one record per play (keyed by its
 * `sessionId`). A save writes the plays it is given and deletes only the ones this storage had
 * seen and that are gone, so two tabs of the game over the same database never delete each
 * other's plays: each sends its own and those stored when it started, and a play sent by both
 * still counts once (the API answers a repeat of its `sessionId` with the first outcome).
 */
export class IndexedDbStorage implements QueueStorage {
  readonly #name: string;
  #db: Promise<IDBDatabase> | undefined;
  #known = new Set<string>();

  /** `name`: the database's name, one per queue. */
  constructor(name = "leaderboard-client-queue") {
    this.#name = name;
  }

  async load(): Promise<QueuedPlay[]> {
    const db = await this.#open();
    const plays = await done<QueuedPlay[]>(db.transaction(STORE).objectStore(STORE).getAll());
    plays.sort((a, b) => a.queuedAt - b.queuedAt);
    this.#known = new Set(plays.map((p) => p.play.sessionId));
    return plays;
  }

  async save(plays: QueuedPlay[]): Promise<void> {
    const db = await this.#open();
    const tx = db.transaction(STORE, "readwrite");
    const store = tx.objectStore(STORE);
    const now = new Set(plays.map((p) => p.play.sessionId));
    for (const gone of this.#known) if (!now.has(gone)) store.delete(gone);
    for (const p of plays) store.put(p, p.play.sessionId);
    await new Promise<void>((ok, fail) => {
      tx.oncomplete = () => ok();
      tx.onerror = () => fail(tx.error);
      tx.onabort = () => fail(tx.error);
    });
    this.#known = now;
  }

  #open(): Promise<IDBDatabase> {
    this.#db ??= new Promise((ok, fail) => {
      const open = indexedDB.open(this.#name, 1);
      open.onupgradeneeded = () => open.result.createObjectStore(STORE);
      open.onsuccess = () => ok(open.result);
      open.onerror = () => fail(open.error);
    });
    return this.#db;
  }
}

function done<T>(request: IDBRequest): Promise<T> {
  return new Promise((ok, fail) => {
    request.onsuccess = () => ok(request.result as T);
    request.onerror = () => fail(request.error);
  });
}
