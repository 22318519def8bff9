// The boards page: every board newest first, filtered by status, game or series, a page at a
// time (`GET /leaderboards`), each linking to its own page.
import type { components } from "../../clients/js/src/generated/api.js";
import type { Api } from "./session.js";
import { filterForm, h, hashParams, link, section, when } from "./view.js";

type Board = components["schemas"]["Board"];
const STATUSES = ["", "open", "ended", "closing", "closed"] as const;

export async function boardsPage(client: Api): Promise<HTMLElement> {
  const filters = hashParams();
  const status = filters.get("status") ?? "";
  const gameId = filters.get("gameId") ?? "";
  const seriesId = filters.get("seriesId") ?? "";
  const query = {
    limit: 25,
    ...(STATUSES.includes(status as (typeof STATUSES)[number]) && status !== "" ? { status: status as Exclude<(typeof STATUSES)[number], ""> } : {}),
    ...(gameId ? { gameId } : {}),
    ...(seriesId ? { seriesId } : {}),
  };
  const first = await client.reads.boards(query);
  const rows = h("tbody");
  const more = h("button", { type: "button" }, "More boards");
  let cursor = first.nextCursor ?? undefined;
  const add = (boards: Board[]) => rows.append(...boards.map(row));
  add(first.leaderboards);
  more.hidden = cursor === undefined;
  more.addEventListener("click", async () => {
    const page = await client.reads.boards({ ...query, ...(cursor ? { cursor } : {}) });
    add(page.leaderboards);
    cursor = page.nextCursor ?? undefined;
    more.hidden = cursor === undefined;
  });

  const form = filterForm(
    (fields) => { location.hash = `#/boards?${fields}`; },
    h("label", {}, "Status ", h("select", { name: "status" }, ...STATUSES.map((s) => h("option", { value: s, selected: s === status }, s || "any")))),
    h("label", {}, "Game ", h("input", { name: "gameId", value: gameId, size: 12 })),
    h("label", {}, "Series ", h("input", { name: "seriesId", value: seriesId, size: 12 })),
    h("button", { type: "submit" }, "Filter"),
  );
  const list =
    first.leaderboards.length === 0 && cursor === undefined
      ? h("p", { class: "muted" }, "No boards match.")
      : h(
          "div",
          { class: "scroll" },
          h("table", {}, h("thead", {}, h("tr", {}, ...["Board", "Name", "Status", "Game", "Entries", "Ends"].map((t) => h("th", {}, t)))), rows),
        );
  return h("div", {}, section("Boards", form, list, more));
}

function row(board: Board): HTMLElement {
  return h(
    "tr",
    {},
    h("td", {}, link(`#/board/${encodeURIComponent(board.leaderboardId)}`, board.leaderboardId)),
    h("td", {}, board.name),
    h("td", {}, h("span", { class: `status ${board.status}` }, board.status)),
    h("td", {}, board.gameId ?? "—"),
    h("td", { class: "num" }, board.playerCount === undefined || board.playerCount === null ? "—" : String(board.playerCount)),
    h("td", {}, when(board.endsAt)),
  );
}
