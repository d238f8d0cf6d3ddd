// Drives Debian's Chromium with Playwright (playwright-core, no browser
// download) through a `murmur-eval view` site written by
// TestViewInBrowser: node view.mjs SITE_DIR. It exits 0 when every check
// holds, 1 with the failed checks on stderr otherwise.
import { chromium } from "playwright-core";
import { pathToFileURL } from "node:url";
import path from "node:path";

const site = path.resolve(process.argv[2]);
const failures = [];
function check(ok, what) {
  if (!ok) failures.push(what);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu"],
});
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  page.setDefaultTimeout(15000);
  // VIEW_SHOT_DIR=dir keeps screenshots of the pages, to look at them.
  const shot = async (name) => {
    if (process.env.VIEW_SHOT_DIR) await page.screenshot({ path: path.join(process.env.VIEW_SHOT_DIR, name + ".png"), fullPage: true });
  };
  const dialogs = [], errors = [], fetched = [];
  page.on("dialog", (d) => { dialogs.push(d.message()); d.dismiss(); });
  page.on("pageerror", (e) => errors.push("page error: " + e));
  page.on("console", (m) => errors.push("console " + m.type() + ": " + m.text()));
  page.on("request", (r) => { if (!r.url().startsWith("file:")) fetched.push(r.url()); });

  // The index: every case, then the filters.
  await page.goto(pathToFileURL(path.join(site, "index.html")).href);
  const rows = page.locator("#cases-body tr");
  await rows.first().waitFor();
  check(await rows.count() === 3, `index lists ${await rows.count()} cases, want 3`);
  await page.selectOption("#f-status", "failed");
  check(await rows.count() === 1 && /multiply/.test(await rows.first().innerText()), "status filter failed: want only multiply");
  await page.selectOption("#f-status", "flipped");
  check(await rows.count() === 1 && /passed→failed/.test(await rows.first().innerText()), "status filter flipped: want multiply, passed→failed");
  await page.selectOption("#f-status", "");
  await page.selectOption("#f-scorer", { label: "result_contains failed" });
  check(await rows.count() === 1, `scorer filter result_contains failed: ${await rows.count()} rows, want 1`);
  await page.selectOption("#f-scorer", "");
  await page.fill("#f-text", "hostile");
  check(await rows.count() === 1, `text filter hostile: ${await rows.count()} rows, want 1`);
  await page.fill("#f-text", "");
  await shot("index");
  await page.click("th[data-key=t]");
  const tokens = (await page.locator("#cases-body tr td:nth-child(5)").allInnerTexts()).map(Number);
  check(tokens.length === 3 && tokens.every((v, i) => i === 0 || tokens[i - 1] >= v), `sorted by tokens (descending): ${tokens}`);
  await page.click("th[data-key=c]");
  const costs = await page.locator("#cases-body tr td:nth-child(6)").allInnerTexts();
  const usd = costs.map((c) => Number(c.replace(/^≈?\$/, "")));
  check(costs.length === 3 && costs.every((c) => /^≈?\$[0-9.]+$/.test(c)) && usd.every((v, i) => i === 0 || usd[i - 1] >= v), `sorted by cost (descending): ${costs}`);

  // index -> the failed case's page: its tool calls, the scorer's reason,
  // and, against the baseline, both transcripts with the divergent turn.
  await page.click("#cases-body a:text-is('multiply')");
  await page.waitForURL(/cases\/multiply\.html/);
  check(await page.locator(".attempt .call .tool:text-is('calc')").first().isVisible(), "the failed case's tool call calc is not visible");
  check(await page.locator(".attempt .call pre:text-is('48')").first().isVisible(), "the failed case's tool output 48 is not visible");
  const reason = page.locator(".attempt table.scores tr", { hasText: "result_contains" });
  check(await reason.isVisible() && /result lacks/.test(await reason.innerText()), "the scorer's reason is not visible");
  await shot("failed-case");
  const flip = page.locator(".flip");
  check(await flip.isVisible(), "the flipped case shows no comparison");
  const what = await page.locator("#flip-e1-what").innerText();
  check(/First divergent turn: turn 0 of attempt 1 .*: the answer differs/.test(what), `the flip does not name the first divergent turn: ${what}`);
  check(await flip.locator(".left .turn").count() === 2 && await flip.locator(".right .turn").count() === 2, "the flip does not show both transcripts' turns");
  check(await flip.locator(".turn.div").count() === 2, "the divergent turn is not marked on both sides");
  check(await flip.locator(".right pre:text-is('42')").first().isVisible(), "the baseline's tool output 42 is not visible");

  // The hostile case, reached from the index by its escaped link: its id
  // and its answer are text, and nothing ran.
  await page.goto(pathToFileURL(path.join(site, "index.html")).href);
  await page.fill("#f-text", "hostile");
  const link = page.locator("#cases-body a").first();
  const shown = await link.innerText();
  check(shown.includes('<img src=x onerror="window.__pwned=4">') && shown.includes("⟨U+202E⟩di"), `the hostile id is not shown as text: ${shown}`);
  await link.click();
  await page.waitForURL(/cases\/hostile/);
  const title = await page.locator("#case-id").innerText();
  check(title.includes("100% <img") && title.includes("⟨U+202E⟩"), `the hostile case's page names it as ${title}`);
  const answer = await page.locator(".attempt h3:text-is('Final answer') + pre").innerText();
  check(answer.includes("<script>window.__pwned=1</script>") && answer.includes("⟨U+202E⟩"), `the hostile answer is not shown as text: ${answer}`);
  await shot("hostile-case");
  check(await page.evaluate(() => window.__pwned) === undefined, "the hostile answer's script ran");
  check(await page.locator("img").count() === 0, "the hostile answer made an image");
  await page.click("a:text-is('← all cases')");
  await page.waitForURL(/index\.html/);
  check(await page.evaluate(() => window.__pwned) === undefined, "the index ran the hostile answer's script");

  check(dialogs.length === 0, `dialogs opened: ${dialogs}`);
  check(errors.length === 0, `console messages or errors: ${errors.join(" | ")}`);
  check(fetched.length === 0, `fetched from the network: ${fetched}`);
} finally {
  await browser.close();
}
if (failures.length) {
  console.error(failures.join("\n"));
  process.exit(1);
}
console.log("view: every browser check passed");
