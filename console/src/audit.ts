// The audit trail page: a player's (by id, or by pseudonym once erased) or a board's admin
// actions, newest first, a page at a time (`GET /admin/audit`).
import type { AuditItem } from "../../clients/js/src/admin.js";
import type { Api } from "./session.js";
import { auditTable } from "./player.js";
import { filterForm, h, hashParams, section } from "./view.js";

const KINDS = { playerId: "Player", pseudonym: "Erased player (pseudonym)", leaderboardId: "Board" } as const;
type Kind = keyof typeof KINDS;

export async function auditPage(client: Api): Promise<HTMLElement> {
  const params = hashParams();
  const kind = (Object.keys(KINDS) as Kind[]).find((k) => params.has(k));
  const value = kind ? params.get(kind) ?? "" : "";
  const form = filterForm(
    (fields) => {
      const v = fields.get("value");
      if (v) location.hash = `#/audit?${new URLSearchParams({ [fields.get("kind") ?? "playerId"]: v })}`;
    },
    h("select", { name: "kind", "aria-label": "Whose trail" }, ...(Object.entries(KINDS) as [Kind, string][]).map(([k, label]) => h("option", { value: k, selected: k === kind }, label))),
    h("input", { name: "value", value, placeholder: "id", "aria-label": "Id" }),
    h("button", { type: "submit" }, "Show trail"),
  );
  if (!kind || value === "") {
    return section("Audit trail", form, h("p", { class: "muted" }, "Every admin action on a player or a board left an item: name one."));
  }
  const list = h("div");
  const more = h("button", { type: "button" }, "Older");
  const items: AuditItem[] = [];
  let cursor: string | undefined;
  const load = async () => {
    const page = await client.admin.auditTrail({ [kind]: value, limit: 50, ...(cursor ? { cursor } : {}) });
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
    list.replaceChildren(auditTable(items));
    more.hidden = cursor === undefined;
  };
  more.addEventListener("click", () => void load());
  await load();
  return section("Audit trail", form, list, more);
}
