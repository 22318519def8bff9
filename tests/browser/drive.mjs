// Drives examples/web in headless Chromium for the browser test (tests/browser.rs), as a
// player would: loads the page, pastes a token, posts a score; posts while offline and goes
// online again; posts while offline and closes the tab, then opens the page again; then opens
// the same page from an origin the API's CORS settings do not list. Prints what the page
// showed as one JSON line; the Rust test asserts on it and on the API.
//
// Environment: CHROMIUM (the browser), PAGE_URL (the page from an allowed origin), FOREIGN_URL
// (the same page from another origin), TOKEN (a player token), SCORE, OFFLINE_SCORE and
// CLOSED_SCORE (the scores to post), SCREENSHOT and OFFLINE_SCREENSHOT (where to write the
// page's screenshots: online at the end, and offline with a play waiting).
import puppeteer from "puppeteer-core";

const env = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set`);
  return value;
};
const WAIT = { timeout: 60_000 };

const rows = (page, table) =>
  page.$$eval(`#${table} tbody tr`, (trs) =>
    trs.map((tr) => ({
      cells: [...tr.cells].map((td) => td.textContent),
      me: tr.classList.contains("me"),
    })),
  );

// The status line once it has settled on `ok` or `error`.
async function settled(page) {
  await page.waitForFunction(
    () => ["ok", "error"].includes(document.getElementById("status").dataset.state),
    WAIT,
  );
  return page.$eval("#status", (p) => ({ state: p.dataset.state, text: p.textContent }));
}

// The status line and the queue as the page shows them.
const shown = (page) =>
  page.evaluate(() => ({
    state: document.getElementById("status").dataset.state,
    text: document.getElementById("status").textContent,
    pending: Number(document.getElementById("queue").dataset.pending),
    queued: [...document.querySelectorAll("#pending li")].map((li) => li.textContent),
  }));

// Waits until the status line is `state` and the queue holds `pending` plays.
async function until(page, state, pending) {
  await page.waitForFunction(
    (state, pending) =>
      document.getElementById("status").dataset.state === state &&
      document.getElementById("queue").dataset.pending === String(pending),
    WAIT,
    state,
    pending,
  );
  return shown(page);
}

// Waits until the player's line names `score` as their best.
async function bestShown(page, score) {
  await page.waitForFunction(
    (score) => document.getElementById("me").textContent.includes(`best ${score} `),
    WAIT,
    score,
  );
  return page.$eval("#me", (p) => p.textContent);
}

async function post(page, score) {
  await page.$eval("#score", (el) => (el.value = ""));
  await page.type("#score", score);
  await page.click("#post");
}

async function withToken(page, token) {
  await page.$eval("#token", (el, t) => (el.value = t), token);
}

const browser = await puppeteer.launch({
  executablePath: env("CHROMIUM"),
  headless: true,
  // As root in a container: no sandbox; /dev/shm may be small.
  args: ["--no-sandbox", "--disable-dev-shm-usage", "--no-first-run"],
});
try {
  const report = {};

  // The page from an allowed origin: top 10, then the player's rank, then a play.
  const page = await browser.newPage();
  await page.setViewport({ width: 900, height: 1100 });
  await page.goto(env("PAGE_URL"), WAIT);
  await page.waitForFunction(() => document.querySelectorAll("#top tbody tr").length > 0, WAIT);
  report.topBefore = await rows(page, "top");
  await withToken(page, env("TOKEN"));
  await page.click("#load");
  await page.waitForFunction(() => document.getElementById("me").textContent.includes(":"), WAIT);
  report.meBefore = await page.$eval("#me", (p) => p.textContent);
  await post(page, env("SCORE"));
  report.posted = await settled(page);
  await page.waitForFunction(
    (score) => [...document.querySelectorAll("#top tbody tr.me td")].some((td) => td.textContent === score),
    WAIT,
    env("SCORE"),
  );
  report.topAfter = await rows(page, "top");
  // The page fills the top first and then asks for the player's own entry: wait for that.
  await page.waitForFunction(
    (before) => document.getElementById("me").textContent !== before,
    WAIT,
    report.meBefore,
  );
  report.meAfter = await page.$eval("#me", (p) => p.textContent);
  report.around = await rows(page, "around");

  // Offline: the play is stored on the device and waits; the page says so.
  await page.setOfflineMode(true);
  await post(page, env("OFFLINE_SCORE"));
  report.offline = await until(page, "waiting", 1);
  await page.screenshot({ path: env("OFFLINE_SCREENSHOT"), fullPage: true });
  // Online again: the play is sent, and the page shows the new rank.
  await page.setOfflineMode(false);
  report.online = await until(page, "ok", 0);
  report.onlineMe = await bestShown(page, env("OFFLINE_SCORE"));
  await page.screenshot({ path: env("SCREENSHOT"), fullPage: true });

  // Offline, and the tab closed before the play could go: the page opened again finds it in
  // IndexedDB and sends it once the player is signed in.
  await page.setOfflineMode(true);
  await post(page, env("CLOSED_SCORE"));
  report.closedOffline = await until(page, "waiting", 1);
  await page.close();
  const again = await browser.newPage();
  await again.setViewport({ width: 900, height: 1100 });
  await again.goto(env("PAGE_URL"), WAIT);
  await again.waitForFunction(() => document.getElementById("queue").dataset.pending === "1", WAIT);
  report.reopened = await shown(again);
  await withToken(again, env("TOKEN"));
  await again.click("#load");
  report.reopenedSent = await until(again, "ok", 0);
  report.reopenedMe = await bestShown(again, env("CLOSED_SCORE"));

  // The same page from an origin not in the list: the browser refuses the API's answers
  // (reads) and its preflight (the play), so nothing renders and nothing is posted.
  const foreign = await browser.newPage();
  const messages = [];
  foreign.on("console", (m) => messages.push(m.text()));
  await foreign.goto(env("FOREIGN_URL"), WAIT);
  report.foreignLoad = await settled(foreign);
  report.foreignTop = await rows(foreign, "top");
  await withToken(foreign, env("TOKEN"));
  await post(foreign, "1");
  // No answer the browser may read: the play is kept on that origin's device, never sent.
  report.foreignPost = await until(foreign, "waiting", 1);
  report.foreignConsole = messages;

  process.stdout.write(JSON.stringify(report) + "\n");
} finally {
  await browser.close();
}
