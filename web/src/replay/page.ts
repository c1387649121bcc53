// The replay page, /replay/ID: one recorded round played in the page with
// the live game's simulation (the same webtron.wasm, in the same worker:
// src/replay/worker.ts) and renderer. The viewer plays, pauses, changes the
// speed (0.25x to 8x), seeks anywhere (the seek bar, the arrow keys), steps
// tick by tick, follows any cycle or watches from above, and switches to the
// round as the followed player saw it. ?t=42.5&follow=alice starts at that
// round time following that player. A file that fails its checks (on the
// server: 422; while playing: a hash that does not match) is shown as
// damaged, with the reason, and never played on.
import { Frame } from "../core/frame";
import { Cause } from "../core/layout";
import type { Remote } from "../core/remote";
import { $, el, setText } from "../hud/dom";
import { line } from "../hud/killfeed";
import { winnerText } from "../hud/summary";
import { roomLabel } from "../net/practice";
import { colorCSS } from "../render/palette";
import { Minimap } from "../render/minimap";
import type { Renderer } from "../render/renderer";
import { fetchReplay, fmtClock, replayURL } from "./api";
import type { ReplayClock, ReplayFromWorker, ReplayInfo, ReplayState } from "./messages";

/** The speeds offered, slowest first (↑ and ↓ move between them). */
const SPEEDS = [0.25, 0.5, 1, 2, 4, 8];
/** How far ← and → seek, seconds of round time. */
const SEEK_KEY_S = 5;
/** How long a kill stays in the feed, seconds of round time. */
const FEED_S = 6;

export interface ReplayOptions {
  /** Round time to start at, seconds. */
  t?: number;
  /** The name of the player to follow. */
  follow?: string;
  /** Called with the id once a pending one (watch again) is known. */
  resolved?: (id: string) => void;
}

/** What window.webtron.replay() reports (src/hook.ts). */
export interface ReplayReport {
  id: string;
  /** The tick the page last drew, and the worker's state at its last report. */
  drawnTick: number;
  tick: number;
  hash: string;
  view: number;
  follow: number;
  playing: boolean;
  speed: number;
  loaded: boolean;
  start: number;
  end: number;
  tickRate: number;
  frames: number;
  error: string;
  /** When (ms since the page's navigation began) the core was ready and the replay started, its first frame was drawn, and the whole round was loaded and checked (-1: not yet). */
  startMs: number;
  firstFrameMs: number;
  loadedMs: number;
  /** The core's WebAssembly memory before the file was opened and now; the page's JavaScript heap (Chromium). */
  wasmBeforeBytes: number;
  /** The last seek made while paused: ms from the command to its frame drawn (-1: none yet). */
  seekMs: number;
  /** How many such seeks were timed. */
  seeks: number;
  wasmBytes: number;
  jsHeapBytes: number;
}

export class ReplayPage {
  private readonly frame = new Frame();
  private readonly abort = new AbortController();
  private readonly gen: number;
  private static gens = 0;
  private info: ReplayInfo | null = null;
  private state: ReplayState | null = null;
  private clock: ReplayClock = { playing: false, speed: 1, loaded: false, loadedTo: 0, wasmBytes: 0 };
  private wasmBefore = 0;
  private follow = -1;
  private raf = 0;
  private frames = 0;
  private lastDraw = 0;
  private startedAt = 0;
  private firstFrameMs = -1;
  private loadedMs = -1;
  private error = "";
  private dragging = false;
  /** The last seek asked for while paused: when, to which tick, and how long until a frame of it was drawn. */
  private seekAt = 0;
  private seekTo = -1;
  private seekMs = -1;
  private seeks = 0;
  /** The speed asked for and not yet confirmed by the worker. */
  private speedWant: number | null = null;
  private stopped = false;
  /** The arena from above, as in live play; drawn every other frame. */
  private readonly minimap = new Minimap($<HTMLCanvasElement>("replay-minimap"));

  constructor(
    private readonly remote: Remote,
    private readonly renderer: Renderer,
    private readonly pending: string | Promise<string>,
    private readonly opt: ReplayOptions,
    private readonly exit: () => void,
  ) {
    this.gen = ++ReplayPage.gens;
    this.id = typeof pending === "string" ? pending : "";
  }

  /** The round's id ("" while a pending one is looked for). */
  id: string;

  async start(): Promise<void> {
    this.startedAt = performance.now();
    $("game").hidden = false;
    $("game").classList.add("replaying");
    $("replay").hidden = false;
    this.reset();
    this.wire();
    this.remote.onReplay = (m) => this.handle(m);
    if (typeof this.pending !== "string") {
      this.note("Saving the round…");
      try {
        this.id = await this.pending;
      } catch (e) {
        this.fail(`This round's replay is not available: ${e instanceof Error ? e.message : String(e)}`);
        return;
      }
      if (this.stopped) return;
      this.opt.resolved?.(this.id);
    }
    this.note("Loading the round…");
    let bytes: ArrayBuffer;
    try {
      bytes = await fetchReplay(this.id);
    } catch (e) {
      this.fail(`This replay cannot be played: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    if (this.stopped) return;
    this.remote.replay({ t: "replay", op: "open", bytes, gen: this.gen }, [bytes]);
  }

  stop(): void {
    this.stopped = true;
    cancelAnimationFrame(this.raf);
    this.abort.abort();
    this.remote.replay({ t: "replay", op: "close" });
    if (this.remote.onReplay) this.remote.onReplay = null;
    $("replay").hidden = true;
    $("game").classList.remove("replaying");
    $("game").hidden = true;
  }

  report(): ReplayReport {
    const i = this.info;
    const s = this.state;
    return {
      id: this.id, drawnTick: this.frames > 0 ? this.frame.tick : -1, tick: s ? s.tick : -1, hash: s ? s.hash : "",
      view: s ? s.view : -1, follow: this.follow, playing: this.clock.playing, speed: this.clock.speed, loaded: this.clock.loaded,
      start: i ? i.start : 0, end: i ? i.end : 0, tickRate: i ? i.tickRate : 0, frames: this.frames, error: this.error,
      startMs: this.startedAt, firstFrameMs: this.firstFrameMs, loadedMs: this.loadedMs, wasmBeforeBytes: this.wasmBefore, seekMs: this.seekMs, seeks: this.seeks, wasmBytes: this.clock.wasmBytes,
      jsHeapBytes: (performance as unknown as { memory?: { usedJSHeapSize: number } }).memory?.usedJSHeapSize ?? 0,
    };
  }

  // --- the worker's news ---

  private handle(m: ReplayFromWorker): void {
    if (m.gen !== this.gen || this.stopped) {
      // Another page's frame: its buffer is simply dropped.
      return;
    }
    switch (m.op) {
      case "opened":
        if (m.error || !m.info) this.fail(`This replay cannot be played: ${m.error ?? "no info"}`);
        else this.opened(JSON.parse(m.info) as ReplayInfo);
        this.wasmBefore = m.wasmBefore;
        break;
      case "refused":
        this.note(m.error, 4000);
        this.syncView();
        break;
      case "frame":
        this.draw(m.buf, m.n, m.clock, m.state, m.error);
        break;
    }
  }

  private opened(info: ReplayInfo): void {
    this.info = info;
    this.note("");
    setText($("replay-title"), `${roomLabel(info.room)} · round ${info.round} · ${new Date(info.createdMs).toLocaleString()}`);
    const seek = $<HTMLInputElement>("replay-seek");
    seek.min = String(info.start);
    seek.max = String(info.end);
    seek.value = String(info.start);
    const follow = $<HTMLSelectElement>("replay-follow");
    follow.replaceChildren(option("-1", "Overhead"), ...info.players.map((p) => option(String(p.slot), p.name)));
    const view = $<HTMLSelectElement>("replay-view");
    view.replaceChildren(option("-1", "What happened"), ...info.players.filter((p) => p.sight).map((p) => option(String(p.slot), `As ${p.name} saw it`)));
    view.disabled = view.options.length < 2;
    const who = this.opt.follow ? info.players.find((p) => p.name === this.opt.follow) : undefined;
    if (this.opt.follow && !who) this.note(`${this.opt.follow} did not ride in this round: watching it from above.`, 8000);
    this.setFollow(who ? who.slot : -1);
    const c: { seek?: number; play: boolean } = { play: true };
    if (this.opt.t !== undefined && this.opt.t > 0) c.seek = info.start + Math.round(this.opt.t * info.tickRate);
    this.remote.replay({ t: "replay", op: "control", c });
    this.raf = requestAnimationFrame(this.loop);
  }

  private readonly loop = (): void => {
    if (this.stopped) return;
    this.raf = requestAnimationFrame(this.loop);
    this.remote.requestReplayFrame();
  };

  private draw(buf: ArrayBuffer, n: number, clock: ReplayClock, state: string | null, error: string | null): void {
    this.clock = clock;
    if (this.speedWant === clock.speed) this.speedWant = null;
    if (clock.loaded && this.loadedMs < 0) this.loadedMs = performance.now();
    if (state) this.state = JSON.parse(state) as ReplayState;
    if (error && !this.error) this.fail(`This replay is damaged and cannot be played on: ${error}`);
    if (n > 0) {
      const now = performance.now();
      const dt = this.lastDraw ? Math.min(now - this.lastDraw, 100) / 1000 : 0;
      this.lastDraw = now;
      this.frame.update(new Uint8Array(buf, 0, n));
      if (this.frame.tick === this.seekTo) {
        this.seekMs = now - this.seekAt;
        this.seekTo = -1;
        this.seeks++;
      }
      this.renderer.draw(this.frame, this.follow, dt, false, true);
      if (this.frames % 2 === 0) this.minimap.update(this.frame, this.renderer.trails, this.follow);
      this.ending();
      this.frames++;
      if (this.firstFrameMs < 0) this.firstFrameMs = now;
    }
    this.hud();
  }

  // --- the overlay ---

  /** ending shows the round's result on its last tick, where the replay ends. */
  private ending(): void {
    const i = this.info;
    const at = i !== null && this.frame.tick === i.end;
    const box = $("replay-summary");
    if (at && box.hidden) setText(box, `Round ${i.round} — ${winnerText(this.frame, (id) => this.name(id))}`);
    if (box.hidden === at) box.hidden = !at;
  }

  private hud(): void {
    const i = this.info;
    const s = this.state;
    if (!i || !s) return;
    const rate = i.tickRate;
    setText($("replay-play"), this.clock.playing ? "Pause" : "Play");
    setText($("replay-time"), `${fmtClock((s.tick - i.start) / rate)} / ${fmtClock((i.end - i.start) / rate)}`);
    setText($("replay-loading"), this.clock.loaded ? "" : `checking ${Math.floor((100 * (this.clock.loadedTo - i.start)) / Math.max(1, i.end - i.start))} %`);
    const seek = $<HTMLInputElement>("replay-seek");
    if (!this.dragging && seek.value !== String(s.tick)) seek.value = String(s.tick);
    const speed = $<HTMLSelectElement>("replay-speed");
    const sp = this.speedWant ?? this.clock.speed;
    if (Number(speed.value) !== sp) speed.value = String(sp);
    const view = $<HTMLSelectElement>("replay-view");
    if (view.value !== String(s.view)) view.value = String(s.view);
    this.scores(s);
    this.feed(i, s);
  }

  private scoresKey = "";

  private scores(s: ReplayState): void {
    const rows = [...s.scores].sort((a, b) => b.score - a.score || a.slot - b.slot);
    const key = JSON.stringify([rows, this.follow]);
    if (key === this.scoresKey) return;
    this.scoresKey = key;
    const table = el("table");
    for (const r of rows) {
      const tr = el("tr", "", `${r.alive ? "" : "dead"}${r.slot === this.follow ? " followed" : ""}`);
      const sw = el("td", "", "swatch");
      sw.style.background = colorCSS(r.slot);
      tr.append(sw, el("td", this.name(r.slot), "name"), el("td", String(r.score), "num"));
      table.append(tr);
    }
    $("replay-scores").replaceChildren(table);
  }

  private feedKey = "";

  private feed(i: ReplayInfo, s: ReplayState): void {
    const recent = s.kills.filter((k) => s.tick - k.tick < FEED_S * i.tickRate).slice(-5);
    const key = JSON.stringify(recent);
    if (key === this.feedKey) return;
    this.feedKey = key;
    $("replay-feed").replaceChildren(...recent.map((k) => line(k.victim, causeOf(k.cause), k.killer, (id) => this.name(id))));
  }

  private name(slot: number): string {
    return this.info?.players.find((p) => p.slot === slot)?.name ?? `Player ${slot}`;
  }

  private note(text: string, forMs = 0): void {
    const n = $("replay-note");
    setText(n, text);
    n.hidden = text === "";
    if (forMs > 0) setTimeout(() => n.textContent === text && (n.hidden = true), forMs);
  }

  private fail(text: string): void {
    this.error = text;
    this.note("");
    const e = $("replay-error");
    setText(e, text);
    e.hidden = false;
    for (const id of ["replay-play", "replay-stepback", "replay-stepfwd", "replay-seek", "replay-speed", "replay-follow", "replay-view", "replay-link"]) {
      ($(id) as HTMLButtonElement).disabled = true;
    }
  }

  private reset(): void {
    $("replay-error").hidden = true;
    $("replay-scores").replaceChildren();
    $("replay-feed").replaceChildren();
    setText($("replay-title"), this.id);
    setText($("replay-time"), "");
    for (const id of ["replay-play", "replay-stepback", "replay-stepfwd", "replay-seek", "replay-speed", "replay-follow", "replay-view", "replay-link"]) {
      ($(id) as HTMLButtonElement).disabled = false;
    }
  }

  // --- the viewer's commands ---

  private control(c: { seek?: number; step?: number; speed?: number; play?: boolean; view?: number }): void {
    if (!this.info || this.error) return;
    if (c.seek !== undefined && !this.clock.playing) {
      this.seekAt = performance.now();
      this.seekTo = c.seek;
    }
    this.remote.replay({ t: "replay", op: "control", c });
  }

  private togglePlay(): void {
    this.control({ play: !this.clock.playing });
  }

  private seekBy(seconds: number): void {
    const i = this.info;
    if (!i) return;
    const from = this.state ? this.state.tick : i.start;
    this.control({ seek: Math.min(Math.max(from + Math.round(seconds * i.tickRate), i.start), i.end) });
  }

  private speedBy(dir: number): void {
    // From the speed last asked for: keys pressed faster than the worker answers add up.
    const k = SPEEDS.indexOf(this.speedWant ?? this.clock.speed);
    const next = SPEEDS[Math.min(Math.max((k < 0 ? 2 : k) + dir, 0), SPEEDS.length - 1)];
    this.speedWant = next;
    this.control({ speed: next });
  }

  /** cycleFollow moves the camera to the next (dir 1) or previous player, the overhead view between the last and the first. */
  private cycleFollow(dir: number): void {
    const i = this.info;
    if (!i) return;
    const order = [-1, ...i.players.map((p) => p.slot)];
    const k = order.indexOf(this.follow);
    this.setFollow(order[(((k < 0 ? 0 : k) + dir) % order.length + order.length) % order.length]);
  }

  private setFollow(slot: number): void {
    this.follow = slot;
    const f = $<HTMLSelectElement>("replay-follow");
    f.value = String(slot);
    this.scoresKey = "";
    // A player's view is that player's screen: it follows them.
    const v = this.state ? this.state.view : -1;
    if (v >= 0 && v !== slot) this.control({ view: this.canSee(slot) ? slot : -1 });
  }

  private canSee(slot: number): boolean {
    return this.info?.players.some((p) => p.slot === slot && p.sight) ?? false;
  }

  /** toggleView switches between the truth and the followed player's view. */
  private toggleView(): void {
    const v = this.state ? this.state.view : -1;
    if (v >= 0) {
      this.control({ view: -1 });
      return;
    }
    if (this.follow < 0 || !this.canSee(this.follow)) {
      this.note(this.follow < 0 ? "Follow a player (Q E) to see the round as they saw it." : `${this.name(this.follow)}'s view is not recorded (a bot, or an old file).`, 4000);
      return;
    }
    this.control({ view: this.follow });
  }

  private syncView(): void {
    const view = $<HTMLSelectElement>("replay-view");
    view.value = String(this.state ? this.state.view : -1);
  }

  private async copyLink(): Promise<void> {
    const i = this.info;
    const s = this.state;
    const t = i && s ? (s.tick - i.start) / i.tickRate : 0;
    const url = replayURL(this.id, t, this.follow >= 0 ? this.name(this.follow) : undefined);
    $("replay-link").dataset.url = url;
    try {
      await navigator.clipboard.writeText(url);
      this.note(`Copied ${url}`, 4000);
    } catch {
      this.note(url, 10000);
    }
  }

  private wire(): void {
    const signal = this.abort.signal;
    const on = (id: string, ev: string, f: (e: Event) => void) => $(id).addEventListener(ev, f, { signal });
    on("replay-back", "click", () => this.exit());
    on("replay-note", "click", () => this.note(""));
    on("replay-play", "click", () => this.togglePlay());
    on("replay-stepback", "click", () => this.control({ step: -1 }));
    on("replay-stepfwd", "click", () => this.control({ step: 1 }));
    on("replay-link", "click", () => void this.copyLink());
    const seek = $<HTMLInputElement>("replay-seek");
    on("replay-seek", "input", () => {
      this.dragging = true;
      this.control({ seek: Number(seek.value) });
    });
    on("replay-seek", "change", () => {
      this.dragging = false;
      seek.blur();
    });
    on("replay-speed", "change", (e) => {
      this.speedWant = Number((e.target as HTMLSelectElement).value);
      this.control({ speed: this.speedWant });
      (e.target as HTMLElement).blur();
    });
    on("replay-follow", "change", (e) => {
      this.setFollow(Number((e.target as HTMLSelectElement).value));
      (e.target as HTMLElement).blur();
    });
    on("replay-view", "change", (e) => {
      const v = Number((e.target as HTMLSelectElement).value);
      if (v >= 0) this.setFollow(v);
      this.control({ view: v });
      (e.target as HTMLElement).blur();
    });
    window.addEventListener("keydown", (e) => this.key(e), { signal });
  }

  private key(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const t = e.target as HTMLElement | null;
    if (t && (t.tagName === "SELECT" || (t.tagName === "INPUT" && (t as HTMLInputElement).type !== "range"))) return;
    const k = e.key;
    let done = true;
    if (k === " " || k === "k") this.togglePlay();
    else if (k === "ArrowLeft") this.seekBy(-SEEK_KEY_S);
    else if (k === "ArrowRight") this.seekBy(SEEK_KEY_S);
    else if (k === "ArrowUp") this.speedBy(1);
    else if (k === "ArrowDown") this.speedBy(-1);
    else if (k === ",") this.control({ step: -1 });
    else if (k === ".") this.control({ step: 1 });
    else if (k === "q" || k === "Q") this.cycleFollow(-1);
    else if (k === "e" || k === "E") this.cycleFollow(1);
    else if (k === "v" || k === "V") this.toggleView();
    else if (k === "c" || k === "C") this.renderer.rig.toggle();
    else if (k === "Home") this.control({ seek: this.info ? this.info.start : 0 });
    else if (k === "End") this.control({ seek: this.info ? this.info.end : 0 });
    else done = false;
    if (done) e.preventDefault();
  }
}

function option(value: string, text: string): HTMLOptionElement {
  const o = document.createElement("option");
  o.value = value;
  o.textContent = text;
  return o;
}

/** causeOf maps webtronReplay's cause names to the kill feed's codes (layout Cause). */
function causeOf(name: string): number {
  switch (name) {
    case "rim":
      return Cause.Rim;
    case "wall":
      return Cause.Wall;
    case "own_wall":
      return Cause.OwnWall;
    case "collision":
      return Cause.Collision;
    case "left":
      return Cause.Left;
  }
  return Cause.None;
}
