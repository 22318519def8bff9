// The leaderboard backend's client for web and Node games (see ../README.md).
export { LeaderboardClient } from "./client.js";
export type { ClientOptions, ListedEntry, Play, PlayOutcome, Score } from "./client.js";
export { LeaderboardError, retryAfterSeconds } from "./errors.js";
export type { ErrorCode } from "./errors.js";
export { newSessionId } from "./ulid.js";
export type { components, operations, paths } from "./generated/api.js";
export { MemoryStorage, PlayQueue } from "./queue.js";
export { IndexedDbStorage } from "./indexeddb.js";
export type { QueueOptions, QueueStorage, QueuedPlay, Settled } from "./queue.js";
