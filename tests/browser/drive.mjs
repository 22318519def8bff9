// Drives examples/web in headless Chromium for the browser test (tests/browser.rs), as a
// player would: loads the page, pastes a token, posts a score; then opens the same page from
// an origin the API's CORS settings do not list. Prints what the page showed as one JSON line;
// the Rust test asserts on it and on the API.
//
// Environment: CHROMIUM (the browser), PAGE_URL (the page from an allowed origin), FOREIGN_URL
// (the same page from another origin), TOKEN (a player token), SCORE (the score to post),
// SCREENSHOT (where to write the allowed page's screenshot).
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
  await page.type("#score", env("SCORE"));
  await page.click("#post");
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
  await page.screenshot({ path: env("SCREENSHOT"), fullPage: true });

  // The same page from an origin not in the list: the browser refuses the API's answers
  // (reads) and its preflight (the play), so nothing renders and nothing is posted.
  const foreign = await browser.newPage();
  const messages = [];
  foreign.on("console", (m) => messages.push(m.text()));
  await foreign.goto(env("FOREIGN_URL"), WAIT);
  report.foreignLoad = await settled(foreign);
  report.foreignTop = await rows(foreign, "top");
  await withToken(foreign, env("TOKEN"));
  await foreign.type("#score", "1");
  await foreign.evaluate(() => (document.getElementById("status").dataset.state = "idle"));
  await foreign.click("#post");
  report.foreignPost = await settled(foreign);
  report.foreignConsole = messages;

  process.stdout.write(JSON.stringify(report) + "\n");
} finally {
  await browser.close();
}
