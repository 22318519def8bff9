// A board's page: its settings and state, its shape (the score distribution as a histogram, the
// percentiles, its write shards and the rank index's lag by lane, from
// `GET /admin/leaderboards/{b}/stats`), its top entries a page at a time, and a player's entry
// found by id.
import type { components } from "../../clients/js/src/generated/api.js";
import { LeaderboardError } from "../../clients/js/src/errors.js";
import type { BoardStats } from "../../clients/js/src/admin.js";
import type { Api } from "./session.js";
import { facts, h, histogram, link, range, section, table, when, wide } from "./view.js";

type Board = components["schemas"]["Board"];
const PAGE = 25;

export async function boardPage(client: Api, id: string): Promise<HTMLElement> {
  const board = await client.reads.board(id);
  const stats = await client.admin.boardStats(id).catch((e: unknown) => e);
  return h(
    "div",
    { class: "grid" },
    h("h1", {}, board.name, " ", h("small", {}, board.leaderboardId)),
    section("Board", settings(board)),
    section("Shape", ...shape(stats)),
    wide(section("Top", await topList(client, board))),
  );
}

function settings(b: Board): HTMLElement {
  return facts([
    ["Status", h("span", { class: `status ${b.status}` }, b.status)],
    ["Game", b.gameId ?? "—"],
    ["Series", b.seriesId ?? "—"],
    ["Order", b.order],
    ["Operator", b.operator],
    ["Max score", b.maxScore],
    ["Starts", when(b.startsAt)],
    ["Ends", when(b.endsAt)],
    ["Recurrence", typeof b.recurrence === "object" ? `${b.recurrence.cron} (${b.recurrence.timezone})` : b.recurrence],
    ["Entries", b.playerCount ?? undefined],
    ["Writers", b.writers ?? undefined],
    ["Next board", b.nextLeaderboardId ? link(`#/board/${encodeURIComponent(b.nextLeaderboardId)}`, b.nextLeaderboardId) : undefined],
  ]);
}

function shape(stats: BoardStats | unknown): (Node | string)[] {
  if (stats instanceof LeaderboardError || stats instanceof Error) {
    return [h("p", { class: "muted" }, `No shape to show: ${stats.message}`)];
  }
  const s = stats as BoardStats;
  const behind = s.lanes.filter((l) => l.written !== l.applied);
  const summary = facts([
    ["Entries", s.entries],
    ["Counted by the rank index", s.counted],
    ["Index lag", s.lag === 0 ? "0 (exact)" : `${s.lag} changes`],
    ["Write shards", s.writeShards],
    ["Read in", `${s.requests} requests`],
  ]);
  if (s.buckets.length === 0) return [summary, h("p", { class: "muted" }, "No entries yet.")];
  return [
    summary,
    histogram(merge(s.buckets, 20).map((b) => ({ label: compact(b.low), title: range(b.low, b.high), count: b.count }))),
    table(["Percentile", "Score"], s.percentiles.map((p) => [`p${p.p}`, range(p.low, p.high)])),
    table(
      ["Lane", "Written", "Applied", "Behind"],
      s.lanes.map((l) => [l.lane, l.written, l.applied, l.written - l.applied]),
    ),
    h("p", { class: "muted" }, behind.length === 0 ? "Every lane applied." : `${behind.length} lanes behind.`),
  ];
}

/** A score as a short label: 1.2K, 35M. */
function compact(n: number): string {
  return new Intl.NumberFormat("en", { notation: "compact", maximumFractionDigits: 1 }).format(n);
}

/** At most `rows` bars: runs of neighbouring ranges merged. */
function merge(buckets: BoardStats["buckets"], rows: number): BoardStats["buckets"] {
  const per = Math.max(1, Math.ceil(buckets.length / rows));
  const out: BoardStats["buckets"] = [];
  for (let i = 0; i < buckets.length; i += per) {
    const run = buckets.slice(i, i + per);
    out.push({ low: run[0]!.low, high: run[run.length - 1]!.high, count: run.reduce((n, b) => n + b.count, 0) });
  }
  return out;
}

/** The top entries a page at a time (Previous/Next), and a player's entry found by id. */
async function topList(client: Api, board: Board): Promise<HTMLElement> {
  const box = h("div");
  const cursors: (string | undefined)[] = [undefined];
  let at = 0;
  const draw = async () => {
    const cursor = cursors[at];
    const page = await client.reads.topPage(board.leaderboardId, cursor === undefined ? { limit: PAGE } : { limit: PAGE, cursor });
    cursors[at + 1] = page.nextCursor ?? undefined;
    const prev = h("button", { type: "button", name: "previous", disabled: at === 0, onclick: () => { at -= 1; void draw(); } }, "Previous");
    const next = h("button", { type: "button", name: "next", disabled: page.nextCursor === null || page.nextCursor === undefined, onclick: () => { at += 1; void draw(); } }, "Next");
    box.replaceChildren(
      table(
        ["Rank", "Player", "Name", "Score", "At"],
        page.entries.map((e) => [e.rank, link(`#/player/${encodeURIComponent(e.playerId)}`, e.playerId), e.name ?? "", e.score, when(e.attainedAt)]),
        "No entries.",
      ),
      h("p", { class: "pager" }, prev, ` page ${at + 1} `, next),
    );
  };
  await draw();
  const who = h("input", { type: "search", name: "player", placeholder: "Player id", "aria-label": "Player on this board" });
  const found = h("div", { class: "found" });
  const search = h(
    "form",
    {
      class: "filters",
      onsubmit: async (ev: Event) => {
        ev.preventDefault();
        const player = who.value.trim();
        if (player === "") return;
        try {
          const e = await client.reads.rank(board.leaderboardId, player);
          found.replaceChildren(
            table(
              ["Rank", "Player", "Score", "Exact"],
              [[e.rank, link(`#/player/${encodeURIComponent(e.playerId)}`, e.playerId), e.score, e.rankExact ? "yes" : `± ${e.rankLag}`]],
            ),
          );
        } catch (e) {
          found.replaceChildren(h("p", { class: "muted" }, e instanceof LeaderboardError && e.status === 404 ? `${player} has no entry here.` : String(e)));
        }
      },
    },
    who,
    h("button", { type: "submit" }, "Find on this board"),
  );
  return h("div", {}, search, found, box);
}
