// The events page, on the local stack only: what the functions would have put on the stack's
// EventBridge bus (board closed, new leader, reward granted...), newest first, as
// `GET /local/events` keeps them.
import type { Api } from "./session.js";
import { h, link, section, table } from "./view.js";

interface BusEvent {
  "detail-type": string;
  detail: Record<string, unknown>;
}

export async function eventsPage(client: Api): Promise<HTMLElement> {
  if (!client.config.local) {
    return section("Events", h("p", { class: "muted" }, "A deployed stack's events go to its EventBridge bus: see docs/events.md."));
  }
  const response = await fetch(new URL("/local/events", client.config.apiUrl));
  const { events } = (await response.json()) as { events: BusEvent[] };
  return section(
    "Recent events",
    table(
      ["Event", "Board", "Player", "Detail"],
      events.slice(0, 100).map((e) => [
        e["detail-type"],
        linked("board", e.detail["leaderboardId"]),
        linked("player", e.detail["playerId"]),
        h("code", {}, JSON.stringify(e.detail)),
      ]),
      "No events yet.",
    ),
  );
}

/** A link to the page of the board or player an event names, if it names one. */
function linked(page: "board" | "player", id: unknown): Node | string {
  return typeof id === "string" ? link(`#/${page}/${encodeURIComponent(id)}`, id) : "";
}
