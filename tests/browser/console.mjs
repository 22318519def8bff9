// Drives the operator console (console/, served by the local stack at /console/) in headless
// Chromium for tests/console.rs, as an admin would: a player's token and a bad one refused at
// sign-in, then the admin's token; the boards; a board (its shape and two pages of its top); a
// player, whose entry is removed, who is banned and unbanned, each action then on the trail
// beside them; the audit trail page; the events page; an erasure that waits for its typed
// confirmation. Each page is photographed at 1280x800 and at a 390-pixel phone width. Prints
// what the pages showed as one JSON line; the Rust test asserts on it and on the API.
//
// Environment: CHROMIUM, CONSOLE_URL (`http://127.0.0.1:<port>/console/`), ADMIN_TOKEN,
// PLAYER_TOKEN, BOARD (a board of 30 entries), CHEAT (a player on it and another board),
// ERASE (a player to erase), SHOTS (the folder for the screenshots).
import puppeteer from "puppeteer-core";

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const WAIT = { timeout: 60_000 };
const [BOARD, CHEAT, ERASE, SHOTS] = ["BOARD", "CHEAT", "ERASE", "SHOTS"].map(env);
const WIDTHS = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };
// (Not `isMobile`: changing it reloads the page, and the test goes on on the page it drew.)

const browser = await puppeteer.launch({
  executablePath: env("CHROMIUM"),
  headless: true,
  args: ["--no-sandbox", "--disable-dev-shm-usage"],
});
const report = { shots: [] };
try {
  const page = await browser.newPage();
  page.on("dialog", (d) => void d.accept());
  await page.setViewport(WIDTHS.desktop);

  // Waits until the console has drawn page `name` (body[data-ready]).
  const ready = async (name) => {
    await page.waitForFunction((n) => document.body.dataset.ready === n, WAIT, name);
  };
  const go = async (hash, name) => {
    await page.evaluate(() => delete document.body.dataset.ready);
    await page.evaluate((h) => { location.hash = h; }, hash);
    await ready(name);
  };
  // Both widths of the page shown now.
  const shoot = async (name) => {
    for (const [label, viewport] of Object.entries(WIDTHS)) {
      await page.setViewport(viewport);
      const path = `${SHOTS}/console-${name}-${label}.png`;
      await page.screenshot({ path, fullPage: true });
      report.shots.push(path);
    }
    await page.setViewport(WIDTHS.desktop);
  };
  const text = (selector) => page.$eval(selector, (el) => el.textContent);
  const signIn = async (token) => {
    await page.$eval("textarea[name=token]", (t, v) => { t.value = v; }, token);
    await page.click("form.signin button[type=submit]");
  };
  // Waits for the notice an action leaves, and returns it.
  const notice = async (before) => {
    await page.waitForFunction((b) => document.querySelector(".notice")?.textContent !== b && document.body.dataset.ready === "player" && document.querySelector(".notice"), WAIT, before ?? null);
    return text(".notice");
  };

  await page.goto(env("CONSOLE_URL"), { waitUntil: "load" });
  await ready("signin");
  await shoot("signin");
  // Refused: a player's token, then one that is not a token.
  await signIn(env("PLAYER_TOKEN"));
  await page.waitForFunction(() => document.querySelector(".signin .error").textContent !== "", WAIT);
  report.playerRefused = await text(".signin .error");
  await signIn("not-a-token");
  await page.waitForFunction((b) => document.querySelector(".signin .error").textContent !== b, WAIT, report.playerRefused);
  report.badRefused = await text(".signin .error");
  report.keptAfterRefusals = await page.evaluate(() => sessionStorage.length);

  await signIn(env("ADMIN_TOKEN"));
  await ready("boards");
  report.boards = await page.$$eval("main tbody tr td:first-child", (tds) => tds.map((td) => td.textContent));
  await shoot("boards");

  await go(`#/board/${BOARD}`, "board");
  report.board = {
    heading: await text("main h1"),
    bars: await page.$$eval("svg.histogram rect", (r) => r.length),
    facts: await page.$$eval(".facts dt", (dts) => Object.fromEntries(dts.map((dt) => [dt.textContent, dt.nextElementSibling.textContent]))),
    firstPage: await page.$$eval("section:last-child tbody tr", (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent))),
  };
  await shoot("board");
  await page.click("button[name=next]");
  await page.waitForFunction(() => document.querySelector(".pager").textContent.includes("page 2"), WAIT);
  report.board.secondPage = await page.$$eval("section:last-child tbody tr", (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  // The player search on the board.
  await page.type("input[name=player]", CHEAT);
  await page.click("section:last-child form button[type=submit]");
  await page.waitForFunction(() => document.querySelector(".found table"), WAIT);
  report.board.found = await page.$$eval(".found tbody td", (tds) => tds.map((td) => td.textContent));

  await go(`#/player/${CHEAT}`, "player");
  report.player = {
    heading: await text("main h1"),
    entries: await page.$$eval("button[name^=remove-]", (bs) => bs.map((b) => b.name.slice("remove-".length))),
  };
  await page.click(`button[name=remove-${BOARD}]`);
  report.removed = await notice();
  await page.type("input[name=reason]", "aim assist");
  await page.click("button[name=ban]");
  report.banned = await notice(report.removed);
  report.bannedStatus = await text("section .status");
  await page.click("button[name=unban]");
  report.unbanned = await notice(report.banned);
  report.player.trail = await page.$$eval("section", (ss) => {
    const trail = ss.find((s) => s.querySelector("h2").textContent === "Audit trail");
    return [...trail.querySelectorAll("tbody tr")].map((tr) => [...tr.cells].map((td) => td.textContent));
  });
  report.player.entriesAfter = await page.$$eval("button[name^=remove-]", (bs) => bs.map((b) => b.name.slice("remove-".length)));
  await shoot("player");

  await go(`#/audit?playerId=${CHEAT}`, "audit");
  report.audit = await page.$$eval("main tbody tr", (trs) => trs.map((tr) => [...tr.cells].map((td) => td.textContent)));
  await shoot("audit");

  await go("#/events", "events");
  report.events = await page.$$eval("main tbody tr td:first-child", (tds) => tds.map((td) => td.textContent));
  await shoot("events");

  // The erasure's button stays disabled until the player's id is typed in full.
  await go(`#/player/${ERASE}`, "player");
  await page.type("input[name=confirm]", ERASE.slice(0, -1));
  report.eraseDisabledPartway = await page.$eval("button[name=erase]", (b) => b.disabled);
  await page.type("input[name=confirm]", ERASE.slice(-1));
  report.eraseDisabledTyped = await page.$eval("button[name=erase]", (b) => b.disabled);
  await page.click("button[name=erase]");
  report.erased = await notice();
} finally {
  await browser.close();
}
console.log(JSON.stringify(report));
