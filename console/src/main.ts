// The operator console: a static page that signs an admin in and calls the API's admin and read
// routes (every action an existing admin route, so each leaves the audit item the route writes).
// Pages are addressed by the fragment: #/boards, #/board/<id>, #/player/<id>, #/audit, #/events.
import { LeaderboardError } from "../../clients/js/src/errors.js";
import { auditPage } from "./audit.js";
import { boardPage } from "./board.js";
import { boardsPage } from "./boards.js";
import { eventsPage } from "./events.js";
import { playerPage } from "./player.js";
import { type Api, type Config, adopt, api, finishHostedSignIn, hostedSignIn, loadConfig, signOut, signedIn } from "./session.js";
import { h } from "./view.js";

const main = document.getElementById("main") as HTMLElement;
const nav = document.getElementById("nav") as HTMLElement;

async function start(): Promise<void> {
  const config = await loadConfig();
  const refused = await finishHostedSignIn(config);
  const client = api(config);
  window.addEventListener("hashchange", () => void show(client, refused));
  await show(client, refused);
}

/** Draws the page the fragment names, or the sign-in while no token is kept. */
async function show(client: Api, refused?: string): Promise<void> {
  drawNav(client);
  if (!signedIn()) {
    main.replaceChildren(signInPage(client.config, refused));
    return;
  }
  // `#/<page>/<arg>?<filters>`: the filters are the page's to read.
  const [, page = "boards", ...rest] = (location.hash.split("?")[0] ?? "").split("/");
  const arg = decodeURIComponent(rest.join("/"));
  main.replaceChildren(h("p", { class: "muted" }, "Loading…"));
  try {
    const content =
      page === "board" ? await boardPage(client, arg)
      : page === "player" ? await playerPage(client, arg)
      : page === "audit" ? await auditPage(client)
      : page === "events" ? await eventsPage(client)
      : await boardsPage(client);
    main.replaceChildren(content);
  } catch (e) {
    if (e instanceof LeaderboardError && e.status === 401) {
      // Expired since it was kept: sign in again.
      signOut();
      main.replaceChildren(signInPage(client.config, "The token has expired: sign in again."));
      return;
    }
    main.replaceChildren(problem(e));
  }
  // The page drawn last, for whoever waits on it (the browser test).
  document.body.dataset.ready = page;
}

function drawNav(client: Api): void {
  if (!signedIn()) {
    nav.replaceChildren();
    return;
  }
  const find = h("input", { type: "search", name: "find", placeholder: "Player id or email", "aria-label": "Find a player" });
  const form = h(
    "form",
    {
      class: "find",
      onsubmit: (ev: Event) => {
        ev.preventDefault();
        void findPlayer(client, find.value.trim());
      },
    },
    find,
  );
  nav.replaceChildren(
    h("a", { href: "#/boards" }, "Boards"),
    h("a", { href: "#/audit" }, "Audit trail"),
    ...(client.config.local ? [h("a", { href: "#/events" }, "Events")] : []),
    form,
    h("button", { type: "button", class: "link", onclick: () => { signOut(); void show(client); } }, "Sign out"),
  );
}

/** A player by id, or by the email they registered (`GET /admin/players?email=`). */
async function findPlayer(client: Api, query: string): Promise<void> {
  if (query === "") return;
  if (!query.includes("@")) {
    location.hash = `#/player/${encodeURIComponent(query)}`;
    return;
  }
  try {
    const found = await client.admin.playerByEmail(query);
    location.hash = `#/player/${encodeURIComponent(found.playerId)}`;
  } catch (e) {
    main.replaceChildren(problem(e));
  }
}

function signInPage(config: Config, refused?: string): HTMLElement {
  const token = h("textarea", { name: "token", rows: 5, placeholder: "eyJhbGciOi…", "aria-label": "Admin token" });
  const error = h("p", { class: "error", role: "alert" }, refused ?? "");
  const form = h(
    "form",
    {
      class: "card signin",
      onsubmit: async (ev: Event) => {
        ev.preventDefault();
        const reason = await adopt(config, token.value);
        if (reason !== undefined) {
          error.textContent = reason;
          return;
        }
        // Draws the page the address names (the boards when it names none).
        window.dispatchEvent(new HashChangeEvent("hashchange"));
      },
    },
    h("h2", {}, "Sign in"),
    config.signInUrl
      ? h("p", {}, h("button", { type: "button", onclick: () => void hostedSignIn(config) }, "Sign in with the stack's user pool"))
      : null,
    h("p", {}, config.local
      ? "Paste an admin's token: the local stack prints one when it starts (export ADMIN=…)."
      : "Or paste an admin's ID token (lbctl token)."),
    token,
    h("p", {}, h("button", { type: "submit" }, "Use this token")),
    error,
  );
  document.body.dataset.ready = "signin";
  return form;
}

/** A failed call, in words. */
function problem(e: unknown): HTMLElement {
  const text = e instanceof LeaderboardError ? `${e.status} ${e.code}: ${e.message}` : String(e);
  return h("p", { class: "error", role: "alert" }, text);
}

void start();
