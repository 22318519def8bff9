// A player's page: their profile, their entries on every board (each removable), their recent
// plays and season results, their audit trail beside the actions that write it: ban with a
// reason, unban, and erase behind a typed confirmation (the player's id, typed again).
import type { AuditItem } from "../../clients/js/src/admin.js";
import { LeaderboardError } from "../../clients/js/src/errors.js";
import type { Api } from "./session.js";
import { facts, h, link, section, table, when, wide } from "./view.js";

/** What the last action did, shown once above the page it redraws. */
let notice: string | undefined;

export async function playerPage(client: Api, id: string): Promise<HTMLElement> {
  const [profile, entries, sessions, results, trail] = await Promise.all([
    client.reads.player(id).catch(missing),
    client.reads.playerScores(id, { limit: 100 }),
    client.reads.playerSessions(id, { limit: 20 }),
    client.reads.playerResults(id, { limit: 20 }),
    client.admin.auditTrail({ playerId: id, limit: 50 }),
  ]);
  const banned = trail.items.find((i) => i.action === "banned" || i.action === "unbanned")?.action === "banned";
  const shown = notice;
  notice = undefined;
  const redraw = (message: string) => {
    notice = message;
    window.dispatchEvent(new HashChangeEvent("hashchange"));
  };
  const act = (work: () => Promise<string>) => async () => {
    try {
      redraw(await work());
    } catch (e) {
      redraw(e instanceof LeaderboardError ? `${e.status} ${e.code}: ${e.message}` : String(e));
    }
  };

  const reason = h("input", { name: "reason", placeholder: "Reason, for the record", required: true, maxlength: 500, "aria-label": "Ban reason" });
  const moderation = section(
    "Moderation",
    h("p", {}, banned ? h("span", { class: "status banned" }, "banned") : h("span", { class: "status open" }, "not banned")),
    h(
      "form",
      {
        class: "filters",
        onsubmit: (ev: Event) => {
          ev.preventDefault();
          void act(async () => {
            const ban = await client.admin.ban(id, reason.value);
            return `Banned ${id}; entries removed from ${ban.removedFrom.length} open boards.`;
          })();
        },
      },
      reason,
      h("button", { type: "submit", class: "danger", name: "ban" }, "Ban"),
      h("button", { type: "button", name: "unban", onclick: act(async () => { await client.admin.unban(id); return `${id} may play again.`; }) }, "Unban"),
    ),
    eraseForm(client, id, act),
  );

  return h(
    "div",
    { class: "grid" },
    h("h1", {}, profile?.name ?? id, " ", h("small", {}, id)),
    shown ? h("p", { class: "notice", role: "status" }, shown) : null,
    section(
      "Profile",
      profile
        ? facts([["Lifetime score", profile.lifetimeScore], ["Games played", profile.gamesPlayed], ["Created", when(profile.createdAt)], ["Updated", when(profile.updatedAt)]])
        : h("p", { class: "muted" }, "No profile (never set one, or erased)."),
    ),
    moderation,
    section(
      "Entries",
      table(
        ["Board", "Score", "At", ""],
        entries.entries.map((e) => [
          link(`#/board/${encodeURIComponent(e.leaderboardId)}`, e.leaderboardId),
          e.score,
          when(e.attainedAt),
          h("button", {
            type: "button",
            class: "danger small",
            name: `remove-${e.leaderboardId}`,
            onclick: () => {
              if (!confirm(`Remove ${id}'s entry from ${e.leaderboardId}?`)) return;
              void act(async () => { await client.admin.removeEntry(e.leaderboardId, id); return `Removed ${id}'s entry from ${e.leaderboardId}.`; })();
            },
          }, "Remove"),
        ]),
        "No entries.",
      ),
    ),
    wide(section("Audit trail", auditTable(trail.items))),
    section("Recent plays", table(["Session", "Score", "Game", "Boards", "At"], sessions.sessions.map((s) => [s.sessionId, s.score, s.gameId ?? "—", s.leaderboardIds.join(", "), when(s.attainedAt)]), "No plays.")),
    section("Season results", table(["Board", "Rank", "Score", "Of"], results.results.map((r) => [link(`#/board/${encodeURIComponent(r.leaderboardId)}`, r.leaderboardId), r.rank, r.score, r.playerCount]), "No results.")),
  );
}

/** Erasure, only once the player's id is typed again. */
function eraseForm(client: Api, id: string, act: (work: () => Promise<string>) => () => Promise<void>): HTMLElement {
  const typed = h("input", { name: "confirm", placeholder: `Type ${id} to erase`, autocomplete: "off", "aria-label": "Type the player id to erase" });
  const erase = h("button", { type: "submit", class: "danger", name: "erase", disabled: true }, "Erase everywhere");
  typed.addEventListener("input", () => { erase.disabled = typed.value !== id; });
  return h(
    "form",
    {
      class: "filters",
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        if (typed.value !== id) return;
        void act(async () => {
          const receipt = await client.admin.erase(id);
          return receipt ? `Erasing ${id} as ${receipt.pseudonym}: the schedule finishes it.` : `Erased ${id}.`;
        })();
      },
    },
    typed,
    erase,
  );
}

/** A trail's items, newest first. */
export function auditTable(items: AuditItem[]): HTMLElement {
  return table(
    ["When", "Action", "By", "Board", "Reason"],
    items.map((i) => [when(i.at), h("span", { class: `action ${i.action}` }, i.action), i.actor, i.leaderboardId ? link(`#/board/${encodeURIComponent(i.leaderboardId)}`, i.leaderboardId) : "", i.reason ?? ""]),
    "No admin action yet.",
  );
}

/** A 404 as nothing; anything else thrown on. */
function missing(e: unknown): undefined {
  if (e instanceof LeaderboardError && e.status === 404) return undefined;
  throw e;
}
