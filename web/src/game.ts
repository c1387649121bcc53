// Game: one room joined. It wires the socket, the core, the input, the
// renderer and the HUD, and runs the frame loop:
//
//	requestAnimationFrame -> core.frame(now) (Update + one buffer copy)
//	  -> send what the core queued -> renderer.draw -> HUD
//
// Socket messages go to core.receive as they arrive, key presses to
// core.press at once; what they queue (pongs, proposals) is sent right away,
// not at the next frame, so neither RTT samples nor inputs wait 16 ms.
import { type Core, drainNotices, type Info, parseInfo } from "./core/core";
import { Frame } from "./core/frame";
import { Close, FLAG_NOTICES, MAX_PLAYERS, Press, type PressKind } from "./core/layout";
import { Chat } from "./hud/chat";
import { Debug } from "./hud/debug";
import { $ } from "./hud/dom";
import { Hud } from "./hud/hud";
import { attachKeyboard, type InputSink } from "./input/keyboard";
import { attachTouch } from "./input/touch";
import { Connection, wsURL } from "./net/socket";
import { clearToken, loadToken, saveToken } from "./net/token";
import { Perf } from "./perf";
import { Minimap } from "./render/minimap";
import type { Renderer } from "./render/renderer";

export interface GameOptions {
  name: string;
  room: string;
  spectate: boolean;
  mindReader: boolean;
}

/** A frame later than this after the previous one (a background tab, a
 * sleeping laptop) reconnects for a fresh snapshot instead of replaying
 * every missed tick. */
const RESYNC_GAP_MS = 2000;
/** A tab hidden this long lets go of its socket until it is shown again. */
const HIDDEN_CLOSE_MS = 15000;
const INFO_EVERY_MS = 250;
/** How long the camera stays on your wreck before it follows someone else. */
const WRECK_MS = 1500;

export class Game implements InputSink {
  readonly frame = new Frame();
  readonly perf = new Perf();
  haveFrame = false;
  info: Info | null = null;
  private readonly conn: Connection;
  private readonly hud: Hud;
  private readonly chatBox: Chat;
  private readonly debug = new Debug();
  private readonly minimap = new Minimap($<HTMLCanvasElement>("minimap"));
  private readonly detach: (() => void)[] = [];
  /** Aborted when the game stops: removes the listeners on elements that outlive it. */
  private readonly abort = new AbortController();
  private raf = 0;
  private lastFrameAt = 0;
  private lastInfoAt = 0;
  private fps = 60;
  private frameNo = 0;
  private awaitingOpen = true; // no session for the current socket yet
  private hiddenTimer = 0;
  private pausedHidden = false;
  private fatal = false;
  private sessionLive = false; // the current session has its Welcome
  private follow = -1;
  private specTarget = -1;
  private youDeadAt = 0;
  private youWasAlive = false;

  constructor(
    private readonly core: Core,
    private readonly renderer: Renderer,
    private readonly opt: GameOptions,
    private readonly exit: (message: string) => void,
  ) {
    this.hud = new Hud(opt.room, () => this.exit(""), this.abort.signal);
    this.chatBox = new Chat((text) => {
      this.core.chat(text);
      this.flush();
    }, this.abort.signal);
    this.conn = new Connection(wsURL(), {
      open: () => this.opened(),
      message: (data, arrivedMs) => this.received(data, arrivedMs),
      closed: (reason, retry) => this.closed(reason, retry),
    });
  }

  /** isFor reports whether this game is the room and role r asks for. */
  isFor(r: { room: string; name: string; spectate: boolean }): boolean {
    return r.room === this.opt.room && r.name === this.opt.name && r.spectate === this.opt.spectate;
  }

  start(): void {
    $("game").hidden = false;
    this.hud.showBanner(`Joining ${this.opt.room}…`, false);
    this.detach.push(attachKeyboard(this), attachTouch($("game"), $("brakepad"), this));
    const vis = () => this.visibility();
    document.addEventListener("visibilitychange", vis);
    this.detach.push(() => document.removeEventListener("visibilitychange", vis));
    this.conn.connect();
    this.raf = requestAnimationFrame(this.loop);
  }

  stop(): void {
    this.conn.stop();
    cancelAnimationFrame(this.raf);
    clearTimeout(this.hiddenTimer);
    for (const d of this.detach) d();
    this.detach.length = 0;
    this.abort.abort();
    $("game").hidden = true;
  }

  // --- connection ---

  private opened(): void {
    this.awaitingOpen = false;
    this.sessionLive = false;
    this.core.start({
      name: this.opt.name,
      room: this.opt.room,
      token: loadToken(this.opt.room, this.opt.name),
      spectate: this.opt.spectate,
      mindReader: this.opt.mindReader,
    });
    const hello = this.core.hello(performance.now());
    if (hello) this.conn.send(hello);
    this.flush();
  }

  private received(data: Uint8Array, arrivedMs: number): void {
    const err = this.core.receive(data, performance.now(), arrivedMs);
    this.flush();
    this.notices();
    if (err && !this.fatal) console.warn("webtron:", err);
  }

  private closed(reason: string, retryInMs: number | null): void {
    this.awaitingOpen = true;
    if (this.fatal) return;
    if (this.pausedHidden) {
      this.hud.showBanner("Paused while the tab was hidden.", false);
      return;
    }
    const when = retryInMs === null ? "" : ` — reconnecting in ${(retryInMs / 1000).toFixed(1)} s…`;
    this.hud.showBanner(`Connection lost (${reason})${when}`, true);
  }

  /** resync drops the session and joins again with the token: the server sends a fresh snapshot. */
  private resync(why: string): void {
    this.awaitingOpen = true;
    this.hud.showBanner(why, false);
    this.conn.reconnect();
  }

  private visibility(): void {
    clearTimeout(this.hiddenTimer);
    if (document.hidden) {
      this.hiddenTimer = window.setTimeout(() => {
        this.pausedHidden = true;
        this.awaitingOpen = true;
        this.conn.stop();
        this.hud.showBanner("Paused while the tab was hidden.", false);
      }, HIDDEN_CLOSE_MS);
    } else if (this.pausedHidden) {
      this.pausedHidden = false;
      this.resync("Rejoining…");
    }
  }

  private flush(): void {
    for (const m of this.core.outgoing()) this.conn.send(m);
  }

  private notices(): void {
    for (const n of drainNotices(this.core)) {
      if (n.kind === "chat") {
        this.chatBox.add(n.code, this.name(n.code), n.text);
        continue;
      }
      switch (n.code) {
        case Close.BadToken:
          // The server forgot us: join as a new player on the next attempt.
          clearToken(this.opt.room, this.opt.name);
          break;
        case Close.Version:
        case Close.RoomFull:
        case Close.BadName:
        case Close.NameTaken:
        case Close.Replaced:
        case Close.Kicked:
          // Trying again would get the same answer.
          this.fatal = true;
          this.conn.stop();
          this.exit(n.text);
          return;
      }
      this.chatBox.add(-1, "", n.text);
    }
  }

  // --- input ---

  press(kind: PressKind, queueLatencyMs: number): void {
    const f = this.frame;
    const you = this.haveFrame ? f.you : -1;
    if ((you < 0 || !f.cycles[you].alive) && (kind === Press.Left || kind === Press.Right)) {
      this.switchTarget(kind === Press.Right ? 1 : -1);
      return;
    }
    this.core.press(kind, performance.now(), queueLatencyMs);
    this.flush();
  }

  command(cmd: "camera" | "debug" | "chat" | "next" | "prev"): void {
    switch (cmd) {
      case "camera":
        this.renderer.rig.toggle();
        break;
      case "debug":
        this.debug.toggle();
        this.debug.update(this.info, this.perf, this.fps);
        break;
      case "chat":
        this.chatBox.toggle();
        break;
      case "next":
      case "prev":
        this.switchTarget(cmd === "next" ? 1 : -1);
        break;
    }
  }

  typing(): boolean {
    return this.chatBox.open;
  }

  // --- frame loop ---

  private readonly loop = (): void => {
    this.raf = requestAnimationFrame(this.loop);
    const now = performance.now();
    const gap = this.lastFrameAt ? now - this.lastFrameAt : 0;
    this.lastFrameAt = now;
    if (gap > RESYNC_GAP_MS && !this.awaitingOpen && !this.fatal) {
      this.resync("Catching up…");
      return;
    }
    if (gap > 0) this.fps += (1000 / gap - this.fps) * 0.05;
    const buf = this.awaitingOpen ? null : this.core.frame(now);
    this.flush();
    if (buf) {
      this.frame.update(buf);
      if (!this.sessionLive) this.welcomed();
      this.haveFrame = true;
      this.perf.update.push(this.frame.updateMs);
      if (this.frame.flags & FLAG_NOTICES) this.notices();
    }
    if (now - this.lastInfoAt >= INFO_EVERY_MS) this.slow(now);
    if (!this.haveFrame) return;
    const t0 = performance.now();
    const dt = Math.min(gap, 100) / 1000;
    this.follow = this.chooseFollow(now);
    this.renderer.draw(this.frame, this.follow, dt);
    // The minimap is small; 30 Hz is plenty.
    if (this.frameNo++ % 2 === 0) this.minimap.update(this.frame, this.renderer.trails, this.follow);
    this.hud.frame(this.frame, (id) => this.name(id), this.follow, now);
    this.perf.render.push(performance.now() - t0);
  };

  /** welcomed runs on the first frame of a session: the Welcome arrived. */
  private welcomed(): void {
    this.sessionLive = true;
    this.hud.hideBanner();
    const token = this.core.token();
    if (token) saveToken(this.opt.room, this.opt.name, token);
  }

  private slow(now: number): void {
    this.lastInfoAt = now;
    if (this.awaitingOpen) return;
    this.info = parseInfo(this.core);
    const lag = this.renderer.lag.lag;
    lag.fill(0);
    for (const p of this.info?.players ?? []) {
      if (p.id < MAX_PLAYERS && !p.spectator) lag[p.id] = p.predictedLagMs / 1000;
    }
    this.hud.slow(this.info, this.haveFrame ? this.frame : null);
    this.debug.update(this.info, this.perf, this.fps);
  }

  name(id: number): string {
    const p = this.info?.players.find((q) => q.id === id && !q.spectator);
    return p ? p.name : id === 255 ? "spectator" : `Player ${id}`;
  }

  /** chooseFollow picks the cycle the camera is on: yours while it lives (and its wreck a moment), else a living one. */
  private chooseFollow(now: number): number {
    const f = this.frame;
    const you = f.you;
    if (you >= 0) {
      const c = f.cycles[you];
      if (c.alive) {
        this.youWasAlive = true;
        return you;
      }
      if (this.youWasAlive) {
        this.youWasAlive = false;
        this.youDeadAt = now;
      }
      if (c.inRound && now - this.youDeadAt < WRECK_MS) return you;
    }
    if (this.specTarget >= 0 && f.cycles[this.specTarget].alive) return this.specTarget;
    this.specTarget = -1;
    this.switchTarget(1);
    if (this.specTarget >= 0) return this.specTarget;
    // Nobody alive: stay on the last one while its round lasts.
    return this.follow >= 0 && f.cycles[this.follow].inRound ? this.follow : -1;
  }

  private switchTarget(step: number): void {
    const f = this.frame;
    const start = this.specTarget < 0 ? (step > 0 ? -1 : 0) : this.specTarget;
    for (let k = 1; k <= MAX_PLAYERS; k++) {
      const i = (((start + step * k) % MAX_PLAYERS) + MAX_PLAYERS) % MAX_PLAYERS;
      if (f.cycles[i].alive && i !== f.you) {
        this.specTarget = i;
        return;
      }
    }
  }
}
