// Game: one joined room on the page. The core (simulation, netcode, the
// connection) runs in a worker (src/worker); the page runs the frame loop:
//
//	requestAnimationFrame -> ask the worker for a frame
//	worker: Update to now, write the frame, send what it queued
//	page, on the frame: renderer.draw -> HUD
//
// Key presses go to the worker at once with their time stamps; socket
// messages never touch the page's thread, so drawing cannot delay them.
import type { Info } from "./core/core";
import { Frame } from "./core/frame";
import { Close, MAX_PLAYERS, Press, type PressKind } from "./core/layout";
import type { Notice } from "./core/messages";
import type { Remote } from "./core/remote";
import { Chat } from "./hud/chat";
import { Debug } from "./hud/debug";
import { $, setText } from "./hud/dom";
import { Hud } from "./hud/hud";
import type { Sound } from "./hud/sound";
import { offerFullscreen, toggleFullscreen } from "./hud/fullscreen";
import { settingsPanel } from "./hud/settingsPanel";
import { Gamepads } from "./input/gamepad";
import { attachKeyboard, type Command, type InputSink } from "./input/keyboard";
import { attachTouch } from "./input/touch";
import { wsURL } from "./net/socket";
import type { TransportKind } from "./net/transport";
import { clearToken, heldElsewhere, loadToken, onHeldElsewhere, saveToken } from "./net/token";
import { Perf } from "./perf";
import type { Glance } from "./render/cameraModes";
import { Minimap } from "./render/minimap";
import type { Renderer } from "./render/renderer";
import { NameTags } from "./render/tags";
import { onSettings, settings, update } from "./settings";

export interface GameOptions {
  name: string;
  room: string;
  spectate: boolean;
  mindReader: boolean;
  /** The map a room this join opens plays (an /api/maps id); "" the server's default. */
  map: string;
}

/** A spectator's tab hidden this long lets go of its connection until it is
 * shown again. A player's lets go at once: the server's bot drives an away
 * player's cycle (docs/netcode.md, section 7). */
const HIDDEN_CLOSE_MS = 15000;
/** How long the camera stays on your wreck, pulled back to show the place
 * and the wall you hit, before it follows your killer or the leader. */
const WRECK_MS = 2500;
/** A visitor sees the controls during the countdowns of this many first visits. */
const HINT_VISITS = 2;
const VISITS_KEY = "webtron.visits";
let visit = 0;

/** visitNumber counts this page load among the visitor's visits that played (once per load). */
function visitNumber(): number {
  if (visit === 0) {
    visit = (Number(localStorage.getItem(VISITS_KEY)) || 0) + 1;
    localStorage.setItem(VISITS_KEY, String(visit));
  }
  return visit;
}
/** How long the page says that control returns after coming back to its
 * seat: the bot drives it that long more (room.handBack), or until a key. */
const BACK_CUE_MS = 1000;
/** What a page says when another tab of this browser took its seat. */
const CONTINUED = "This game continued in another tab.";

export class Game implements InputSink {
  readonly frame = new Frame();
  readonly perf = new Perf();
  haveFrame = false;
  info: Info | null = null;
  /** Each seated player's name and label by id, from the last Info: the
   * name tags and the HUD ask for them every frame, and a search of the
   * players' list for each was quadratic in the players. */
  private readonly names = new Map<number, string>();
  private readonly labels = new Map<number, string>();
  private readonly labelOf = (id: number): string => this.label(id);
  /** What carries the connection, once it opened (window.webtron.state().transport). */
  transport: TransportKind | "" = "";
  private readonly hud: Hud;
  private readonly chatBox: Chat;
  private readonly debug = new Debug();
  private readonly minimap = new Minimap($<HTMLCanvasElement>("minimap"));
  private readonly tags = new NameTags($("tags"));
  /** How many name tags the last frame showed (window.webtron.scene()). */
  get nameTagsShown(): number {
    return this.tags.shown;
  }
  private readonly pads = new Gamepads(this);
  private readonly detach: (() => void)[] = [];
  /** Aborted when the game stops: removes the listeners on elements that outlive it. */
  private readonly abort = new AbortController();
  private raf = 0;
  private lastFrameAt = 0;
  private fps = 60;
  private frameNo = 0;
  /** The page's script time since the last drawn frame outside draw: the
   * frame's request and the HUD's slow refresh (window.webtron.perf()'s main_ms). */
  private between = 0;
  private hiddenTimer = 0;
  /** The page let go of its connection while its tab was hidden. */
  private away = false;
  /** The token of the seat this page holds (null before its first welcome). */
  private seatToken: Uint8Array | null = null;
  private cueTimer = 0;
  private fatal = false;
  private follow = -1;
  private specTarget = -1;
  private youDeadAt = 0;
  private youWasAlive = false;

  constructor(
    private readonly remote: Remote,
    readonly renderer: Renderer,
    private readonly sound: Sound,
    private readonly opt: GameOptions,
    private readonly exit: (message: string) => void,
  ) {
    this.hud = new Hud(opt.room, () => this.exit(""), sound, this.abort.signal, !opt.spectate && visitNumber() <= HINT_VISITS);
    this.chatBox = new Chat((text) => this.remote.chat(text), this.abort.signal);
  }

  /** isFor reports whether this game is the room and role r asks for. */
  isFor(r: { room: string; name: string; spectate: boolean }): boolean {
    return r.room === this.opt.room && r.name === this.opt.name && r.spectate === this.opt.spectate;
  }

  start(): void {
    $("game").hidden = false;
    // A spectator has no cycle: what is for riding one (the brake pad) is not shown.
    $("game").classList.toggle("spectating", this.opt.spectate);
    this.hud.showBanner(`Joining ${this.opt.room}…`, false);
    this.detach.push(attachKeyboard(this), attachTouch($("game"), $("brakepad"), this));
    this.detach.push(onSettings((s) => {
      Object.assign(this.renderer.rig.settings, s.camera);
      this.sound.setVolume(s.volume);
    }));
    const signal = this.abort.signal;
    $("hud-settings").addEventListener("click", () => this.command("close"), { signal });
    $("fullscreen").addEventListener("click", () => toggleFullscreen(), { signal });
    offerFullscreen(signal);
    const vis = () => this.visibility();
    document.addEventListener("visibilitychange", vis);
    this.detach.push(() => document.removeEventListener("visibilitychange", vis));
    if (!this.opt.spectate) {
      this.detach.push(onHeldElsewhere(this.opt.room, this.opt.name, () => this.seatToken && this.continuedElsewhere()));
    }
    this.connect();
    this.raf = requestAnimationFrame(this.loop);
  }

  stop(): void {
    this.remote.stop();
    cancelAnimationFrame(this.raf);
    clearTimeout(this.hiddenTimer);
    clearTimeout(this.cueTimer);
    $("back-cue").hidden = true;
    for (const d of this.detach) d();
    this.detach.length = 0;
    this.abort.abort();
    $("game").hidden = true;
    $("game").classList.remove("over", "riding", "spectating");
  }

  // --- connection ---

  private connect(): void {
    const o = this.opt;
    const token = o.spectate ? null : loadToken(o.room, o.name);
    this.seatToken = token;
    this.remote.start({ name: o.name, room: o.room, token, spectate: o.spectate, mindReader: o.mindReader, map: o.map }, wsURL(), {
      frame: (buf, work, recv) => this.draw(buf, work, recv),
      info: (json) => {
        const t0 = performance.now();
        this.slow(JSON.parse(json) as Info);
        this.between += performance.now() - t0;
      },
      notices: (list) => this.notices(list),
      welcome: (tok) => this.welcomed(tok),
      open: (transport) => {
        this.transport = transport;
      },
      closed: (reason, retry) => this.closed(reason, retry),
    });
  }

  /** welcomed keeps the seat's token; back in the seat it held, the page says that control returns. */
  private welcomed(tok: Uint8Array | null): void {
    this.hud.hideBanner();
    if (!tok) return;
    const back = this.seatToken !== null && tok.length === this.seatToken.length && tok.every((b, i) => b === this.seatToken?.[i]);
    this.seatToken = tok;
    saveToken(this.opt.room, this.opt.name, tok);
    if (!back) return;
    const cue = $("back-cue");
    setText(cue, "Welcome back — control returns in 1 s");
    cue.hidden = false;
    // When it showed and went, on the page's clock (a test reads them: its own polling is late under load).
    cue.dataset.shownAt = String(performance.now());
    clearTimeout(this.cueTimer);
    this.cueTimer = window.setTimeout(() => {
      cue.hidden = true;
      cue.dataset.hiddenAt = String(performance.now());
    }, BACK_CUE_MS);
  }

  /** continuedElsewhere leaves for the lobby, for good: another tab of this browser has the seat now. */
  private continuedElsewhere(): void {
    if (this.fatal) return;
    this.fatal = true;
    this.remote.stop();
    this.exit(CONTINUED);
  }

  private closed(reason: string, retryInMs: number | null): void {
    if (this.fatal || this.away) return;
    const when = retryInMs === null ? "" : ` — reconnecting in ${(retryInMs / 1000).toFixed(1)} s…`;
    this.hud.showBanner(`Connection lost (${reason})${when}`, true);
  }

  /** visibility lets go of the connection while the tab is hidden, and
   * comes back when it is shown, unless another tab took the seat meanwhile.
   * A hidden page draws nothing and its core stands still (it updates on
   * animation frames), so a player's cycle is left to the server's bot at
   * once rather than riding on unattended. */
  private visibility(): void {
    clearTimeout(this.hiddenTimer);
    if (document.hidden) {
      if (this.fatal || this.away) return;
      if (this.opt.spectate) this.hiddenTimer = window.setTimeout(() => this.goAway(), HIDDEN_CLOSE_MS);
      else this.goAway();
    } else if (this.away && !this.fatal) {
      this.away = false;
      if (this.seatToken && heldElsewhere(this.opt.room, this.opt.name)) {
        this.continuedElsewhere();
        return;
      }
      this.hud.showBanner("Rejoining…", false);
      this.connect();
    }
  }

  private goAway(): void {
    this.away = true;
    this.remote.stop();
    this.hud.showBanner(this.opt.spectate ? "Paused while the tab was hidden." : "Away: a bot rides for you until you come back.", false);
  }

  private notices(list: Notice[]): void {
    for (const n of list) {
      if (n.kind === "chat") {
        this.chatBox.add(n.code, this.name(n.code), n.text);
        continue;
      }
      switch (n.code) {
        case Close.BadToken:
          // The server forgot us: the worker joins as a new player on its next attempt.
          clearToken(this.opt.room, this.opt.name);
          break;
        case Close.Replaced:
          this.continuedElsewhere();
          return;
        case Close.Version:
        case Close.RoomFull:
        case Close.BadName:
        case Close.NameTaken:
        case Close.Kicked:
        case Close.AddrLimit:
          // Trying again would get the same answer.
          this.fatal = true;
          this.remote.stop();
          this.exit(n.text);
          return;
      }
      this.chatBox.add(-1, "", n.text);
    }
  }

  // --- input ---

  press(kind: PressKind, eventTimeStamp: number): void {
    const f = this.frame;
    const you = this.haveFrame ? f.you : -1;
    if ((you < 0 || !f.cycles[you].alive) && (kind === Press.Left || kind === Press.Right)) {
      // Watching: the free camera turns, or the camera moves to another rider.
      if (you < 0 && this.renderer.rig.mode === "free") this.renderer.rig.moveFree(kind === Press.Left ? 0.35 : -0.35, 0);
      else this.switchTarget(kind === Press.Right ? 1 : -1);
      return;
    }
    this.remote.press(kind, eventTimeStamp);
    this.perf.input.push(performance.now() - eventTimeStamp);
    this.sound.unlock();
  }

  command(cmd: Command): void {
    this.sound.unlock(); // a key press is a gesture: audio may start
    switch (cmd) {
      case "mute":
        this.hud.toggleMute();
        break;
      case "camera": {
        const rig = this.renderer.rig;
        rig.toggle(this.opt.spectate);
        update((s) => (s.camera.mode = rig.mode));
        break;
      }
      case "fullscreen":
        toggleFullscreen();
        break;
      case "scores":
        $("hud-left").classList.toggle("folded");
        break;
      case "debug":
        this.debug.toggle();
        this.debug.update(this.info, this.perf, this.fps, this.transport);
        break;
      case "chat":
        this.chatBox.toggle();
        break;
      case "next":
      case "prev":
        if (this.opt.spectate && this.renderer.rig.mode === "free") this.renderer.rig.moveFree(0, cmd === "next" ? -0.15 : 0.15);
        else this.switchTarget(cmd === "next" ? 1 : -1);
        break;
      case "close":
        // Esc: the summary first, then the settings.
        if (this.hud.summaryTick() >= 0) this.hud.closeSummary();
        else settingsPanel().openPanel();
        break;
    }
  }

  glance(dir: Glance, held: boolean): void {
    const rig = this.renderer.rig;
    if (held) rig.glance = dir;
    else if (dir === "none" || rig.glance === dir) rig.glance = "none";
  }

  /** summaryTick is a tick of the round the summary shows, else the present ("watch again" finds the round by it). */
  summaryTick(): number {
    const t = this.hud.summaryTick();
    return t >= 0 ? t : this.frame.tick;
  }

  /** say puts a line of the page's own in the chat log (a replay's link). */
  say(text: string): void {
    this.chatBox.add(-1, "", text);
  }

  typing(): boolean {
    return this.chatBox.open || settingsPanel().open;
  }

  // --- frame loop ---

  private readonly loop = (): void => {
    const t0 = performance.now();
    this.raf = requestAnimationFrame(this.loop);
    this.remote.requestFrame();
    this.between += performance.now() - t0;
  };

  /** draw applies a frame from the worker and draws it (the buffer goes back after this);
   * work and recv are what the worker spent on it (window.webtron.perf()). */
  private draw(buf: Uint8Array, work: number, recv: number): void {
    this.perf.frameMark();
    const now = performance.now();
    const gap = this.lastFrameAt ? now - this.lastFrameAt : 0;
    this.lastFrameAt = now;
    if (gap > 0) {
      this.fps += (1000 / gap - this.fps) * 0.05;
      this.perf.interval.push(gap);
    }
    this.frame.update(buf);
    this.haveFrame = true;
    this.pads.poll(now);
    this.perf.update.push(this.frame.updateMs);
    this.perf.worker.push(work);
    this.perf.recv.push(recv);
    const dt = Math.min(gap, 100) / 1000;
    this.follow = this.chooseFollow(now);
    // Every frame is drawn: its walls are only in this buffer. Your wreck
    // is seen from further back, to show where and what you hit.
    const wreck = this.follow >= 0 && this.follow === this.frame.you && !this.frame.cycles[this.follow].alive;
    this.renderer.draw(this.frame, this.follow, dt, wreck, this.opt.spectate);
    this.tags.update(this.frame, this.renderer.rig.camera, this.labelOf, settings().nameTags);
    // The minimap is small; every other frame is plenty.
    if (this.frameNo++ % 2 === 0) this.minimap.update(this.frame, this.renderer.trails, this.follow);
    this.hud.frame(this.frame, this.labelOf, this.follow, now);
    const spent = performance.now() - now;
    this.perf.render.push(spent);
    this.perf.main.push(spent + this.between);
    this.between = 0;
  }

  /** slow takes the HUD's numbers (a few times a second). */
  private slow(info: Info): void {
    this.info = info;
    this.names.clear();
    this.labels.clear();
    for (const p of info.players) {
      if (p.spectator || this.names.has(p.id)) continue;
      this.names.set(p.id, p.name);
      this.labels.set(p.id, !p.bot && !p.connected ? `${p.name} (away)` : p.name);
    }
    const lag = this.renderer.lag.lag;
    lag.fill(0);
    for (const p of info.players) {
      if (p.id < MAX_PLAYERS && !p.spectator) lag[p.id] = p.predictedLagMs / 1000;
    }
    this.hud.slow(info, this.haveFrame ? this.frame : null);
    this.debug.update(info, this.perf, this.fps, this.transport);
  }

  name(id: number): string {
    return this.names.get(id) ?? (id === 255 ? "spectator" : `Player ${id}`);
  }

  /** label is a player's name as the HUD shows it: "(away)" while the server's bot drives a player who is away. */
  label(id: number): string {
    return this.labels.get(id) ?? this.name(id);
  }

  /** chooseFollow picks the cycle the camera is on: yours while it lives
   * (and its wreck a moment), then your killer while it rides, else the one
   * you chose, else the leader. */
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
        const k = c.killer;
        this.specTarget = k >= 0 && k !== you && f.cycles[k].alive ? k : this.leader();
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

  /** leader is the living cycle with the best score (-1 none). */
  private leader(): number {
    let best = -1;
    for (const c of this.frame.cycles) {
      if (c.alive && c.id !== this.frame.you && (best < 0 || c.score > this.frame.cycles[best].score)) best = c.id;
    }
    return best;
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
