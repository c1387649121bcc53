// drive.mjs runs Firefox for e2e/firefox_test.go over WebDriver BiDi
// (puppeteer-core, which downloads no browser) and does what the Go test
// asks, one JSON command a line on stdin, one JSON answer a line on file
// descriptor 3 (stdout and stderr carry Firefox's own output, for the test's
// failure messages):
//
//   {"id":1,"op":"open","page":"a","url":"http://...","window":false}
//   {"id":2,"op":"type","page":"a","selector":"#name","text":"Alice"}
//   {"id":3,"op":"click","page":"a","selector":"#play"}
//   {"id":4,"op":"press","page":"a","key":"ArrowLeft"}
//   {"id":5,"op":"eval","page":"a","js":"document.title"}
//   {"id":6,"op":"screenshot","page":"a","path":"/tmp/a.png"}
//   {"id":7,"op":"errors","page":"a"}
//   -> {"id":N,"value":...} or {"id":N,"error":"..."}
//
// Clicks and keys are real input (BiDi input.performActions), as a person's
// are. The first line out is {"ready":"firefox/VERSION"}; the browser closes
// when stdin does. Keeping the test's logic in Go lets it share the server,
// the headless watcher and the checks with the Chromium tests.
//
// Environment: FIREFOX (the executable, default /usr/bin/firefox-esr) and
// DISPLAY (an X server: Firefox has no WebGL headless, so it runs under Xvfb).
import { writeSync } from "node:fs";
import { createInterface } from "node:readline";
import puppeteer from "puppeteer-core";

const out = (o) => writeSync(3, JSON.stringify(o) + "\n");

const browser = await puppeteer.launch({
  browser: "firefox",
  protocol: "webDriverBiDi",
  executablePath: process.env.FIREFOX || "/usr/bin/firefox-esr",
  headless: false,
  dumpio: true,
  args: ["--width=960", "--height=600"],
  extraPrefsFirefox: {
    // Xvfb's only GL is Mesa's software renderer (llvmpipe): WebGL on it
    // all the same, as on a player's machine with a blocklisted GPU.
    "webgl.force-enabled": true,
  },
});

const pages = new Map();
const errors = new Map();

async function open(name, url, window) {
  const page = window ? await browser.newPage({ type: "window" }) : (await browser.pages())[0] ?? (await browser.newPage());
  const errs = [];
  page.on("console", (m) => {
    if (m.type() === "error") errs.push("console.error: " + m.text());
  });
  page.on("pageerror", (e) => errs.push("exception: " + (e?.message ?? String(e))));
  pages.set(name, page);
  errors.set(name, errs);
  await page.setViewport({ width: 960, height: 600 });
  await page.goto(url, { waitUntil: "load" });
  return page.url();
}

function get(name) {
  const p = pages.get(name);
  if (!p) throw new Error(`no page ${JSON.stringify(name)}: open it first`);
  return p;
}

async function run(c) {
  switch (c.op) {
    case "open":
      return open(c.page, c.url, !!c.window);
    case "type": {
      // As a person replaces what a field holds: click into it, select all, type.
      const p = get(c.page);
      await p.waitForSelector(c.selector, { visible: true, timeout: 10000 });
      await p.click(c.selector);
      await p.keyboard.down("Control");
      await p.keyboard.press("a");
      await p.keyboard.up("Control");
      await p.keyboard.type(c.text);
      return null;
    }
    case "click": {
      const p = get(c.page);
      await p.waitForSelector(c.selector, { visible: true, timeout: 10000 });
      await p.click(c.selector);
      return null;
    }
    case "press":
      await get(c.page).keyboard.press(c.key);
      return null;
    case "eval":
      return get(c.page).evaluate(c.js);
    case "screenshot":
      await get(c.page).screenshot({ path: c.path });
      return c.path;
    case "errors":
      return errors.get(c.page) ?? [];
    default:
      throw new Error(`unknown op ${JSON.stringify(c.op)}`);
  }
}

out({ ready: await browser.version() });
const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  let c;
  try {
    c = JSON.parse(line);
    out({ id: c.id, value: (await run(c)) ?? null });
  } catch (e) {
    out({ id: c?.id ?? 0, error: String(e?.message ?? e) });
  }
}
await browser.close();
