// The API's refusals as one error type: its `error.code`, the HTTP status, and what a game needs
// to act on it (when to try again, which play it was).
import type { components } from "./generated/api.js";

/** Every code the API sends in `{"error": {"code": ...}}` (from openapi.yaml). */
export type ErrorCode = components["schemas"]["Error"]["error"]["code"];

/** A request the API refused, or that never got an answer (`status` 0, `code` "network"). */
export class LeaderboardError extends Error {
  /** The HTTP status; 0 when no answer came (the network, a timeout). */
  readonly status: number;
  /** The API's `error.code`, or "network" when no answer came. */
  readonly code: ErrorCode | "network";
  /** Seconds the API asked to wait before trying again (`Retry-After`), if it said. */
  readonly retryAfter: number | undefined;
  /** The play's `sessionId`, for a refused play. */
  readonly sessionId: string | undefined;

  constructor(
    status: number,
    code: ErrorCode | "network",
    message: string,
    retryAfter?: number,
    sessionId?: string,
  ) {
    super(message);
    this.name = "LeaderboardError";
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
    this.sessionId = sessionId;
  }

  /**
   * Whether the same request may succeed later: no answer, 503 `unavailable`, 429
   * `rate_limited` or 500 `internal`. A play is safe to resend: its `sessionId` names it.
   */
  get retryable(): boolean {
    return (
      this.code === "network" ||
      this.code === "unavailable" ||
      this.code === "rate_limited" ||
      this.code === "internal"
    );
  }
}

/** `Retry-After` in seconds (a number of seconds or an HTTP date), if present. */
export function retryAfterSeconds(value: string | null, now: number = Date.now()): number | undefined {
  if (value === null) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}
