// The page's word when the game cannot go on (#fatal): no WebGL, a core
// that did not load, a core that failed. It says what is missing, what to
// try, and leads back to the lobby; without it such a page stayed black
// (issue 23). Every failure shown is also reported (src/report.ts).
import { $, el } from "./hud/dom";

/** Why the game cannot go on: webgl, none to draw with; render, the
 * renderer failed with WebGL there; load, the core did not load; panic, it
 * failed while running. */
export type FatalKind = "webgl" | "render" | "load" | "panic";

interface Words {
  title: string;
  what: string;
  tries: string[];
}

function words(kind: FatalKind, detail: string): Words {
  switch (kind) {
    case "webgl":
      return {
        title: "This browser cannot draw the game: WebGL is unavailable",
        what: `${detail} Webtron draws the arena in 3D with WebGL.`,
        tries: [
          "Turn on hardware acceleration (graphics acceleration) in the browser's settings, then reload.",
          "Try another browser: a recent Firefox, Chrome, Edge or Safari.",
          "A graphics card the browser has blocklisted may work again with a newer driver.",
        ],
      };
    case "render":
      return {
        title: "The game could not be drawn",
        what: `The 3D renderer (WebGL) failed: ${detail}`,
        tries: ["Reload the page.", "Turn on hardware acceleration in the browser's settings.", "Try another browser."],
      };
    case "load":
      return {
        title: "The game could not load",
        what: `Its core (WebAssembly, about 3 MB, run in a Web Worker) did not start: ${detail}`,
        tries: ["Reload the page.", "Check your connection.", "Try another browser: the game needs WebAssembly and Web Workers."],
      };
    case "panic":
      return {
        title: "The game stopped with an error",
        what: `Its core failed: ${detail}. The error has been reported.`,
        tries: ["Go back to the lobby and join again.", "Reload the page if it happens again."],
      };
  }
}

let onBack: () => void = () => {};
let wired = false;

/** showFatal shows why the game cannot go on; the Back to lobby button hides it and calls back. */
export function showFatal(kind: FatalKind, detail: string, back: () => void): void {
  const w = words(kind, detail.trim());
  $("fatal-title").textContent = w.title;
  $("fatal-text").textContent = w.what;
  $("fatal-try").replaceChildren(...w.tries.map((t) => el("li", t)));
  $("fatal").dataset.kind = kind;
  onBack = back;
  if (!wired) {
    wired = true;
    $("fatal-back").addEventListener("click", () => {
      hideFatal();
      onBack();
    });
    $("fatal-reload").addEventListener("click", () => location.reload());
  }
  $("fatal").hidden = false;
  $("fatal-back").focus();
}

export function hideFatal(): void {
  $("fatal").hidden = true;
}
