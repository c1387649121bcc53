// The in-game HUD: scores, connection numbers, countdown and winner, gauges,
// kill feed, round and match summaries, what killed you, the controls for a
// newcomer, sound, the connection banner, and who the camera follows.
import type { Info } from "../core/core";
import type { Frame } from "../core/frame";
import { Cause, Phase } from "../core/layout";
import { isPracticeRoom } from "../net/practice";
import { colorCSS, teamCSS, teamName } from "../render/palette";
import { $, el, fmtMs, setText } from "./dom";
import { Gauges } from "./gauges";
import { KillFeed } from "./killfeed";
import type { Sound } from "./sound";
import { keyName, settings } from "../settings";
import { deathText, Summary } from "./summary";

/** How long the message naming what killed you stays. */
const DEATH_MSG_MS = 4000;

export class Hud {
  private readonly scores = $("scores");
  private readonly status = $("status");
  private readonly center = $("center");
  private readonly sub = $("subcenter");
  private readonly banner = $("banner");
  private readonly bannerText = $("banner-text");
  private readonly bannerBack = $("banner-back");
  private readonly muteButton = $("mute");
  private readonly game = $("game");
  private readonly gauges = new Gauges();
  private readonly feed = new KillFeed();
  private readonly summary: Summary;
  private readonly deathMsg = $("death-msg");
  private readonly hint = $("controls-hint");
  private info: Info | null = null;
  /** The round you last died in ("match/round") and when the page saw it. */
  private diedIn = "";
  private diedAt = 0;
  /** The scoreboard: its rows by key ("p3" a player's, "t1" a team's) and in their order on it. */
  private readonly board = el("table");
  private boardRows = new Map<string, BoardRow>();
  private boardOrder: HTMLElement[] = [];
  /** The status line's parts (statusParts), found once. */
  private parts: HTMLElement[] = [];
  private goUntil = 0;
  /** Whether the pointer is coarse (touch), live: the line under the camera asks every frame while you watch, and each matchMedia made a new query. */
  private readonly coarse = matchMedia("(pointer: coarse)");
  private lastPhase = -1;

  /** signal removes the listeners when the game ends: the elements outlive it. */
  /** hints: show the controls during countdowns (a visitor's first visits). */
  constructor(private readonly room: string, onBack: () => void, private readonly sound: Sound, signal: AbortSignal, private readonly hints: boolean) {
    this.summary = new Summary(signal);
    this.deathMsg.hidden = true;
    this.hint.hidden = true;
    const k = settings().keys;
    const either = (a: [string, string]) => (a[1] ? `${keyName(a[0])} or ${keyName(a[1])}` : keyName(a[0]));
    setText(this.hint, this.coarse.matches
      ? "Tap the left or right half of the screen to turn · hold BRAKE to slow down"
      : `${keyName(k.left[0])} ${keyName(k.right[0])} or ${keyName(k.left[1])} ${keyName(k.right[1])} to turn · hold ${either(k.brake)} to brake · ${keyName(k.camera[0])} camera · Esc settings`);
    this.bannerBack.addEventListener("click", onBack, { signal });
    $("leave").addEventListener("click", onBack, { signal });
    this.muteButton.addEventListener("click", () => this.toggleMute(), { signal });
    this.showMute();
  }

  /** closeSummary hides the round and match summaries until the next round ends. */
  closeSummary(): void {
    this.summary.close();
  }

  /** summaryTick is a tick of the round the summary shows, or -1 when none shows. */
  summaryTick(): number {
    return this.summary.visible ? this.summary.roundTick : -1;
  }

  toggleMute(): void {
    this.sound.unlock();
    this.sound.toggleMute();
    this.showMute();
  }

  private showMute(): void {
    // The key in brackets is the one bound to mute (rebindable); a touch
    // screen has none to press.
    const k = settings().keys.mute.find((c) => c !== "");
    const key = k && !this.coarse.matches ? ` (${keyName(k)})` : "";
    setText(this.muteButton, `${this.sound.isMuted ? "Muted" : "Sound"}${key}`);
    this.muteButton.classList.toggle("off", this.sound.isMuted);
  }

  /** slow refreshes what comes from Info (a few times a second). */
  slow(info: Info | null, f: Frame | null): void {
    if (!info) return;
    this.info = info;
    const you = f ? f.you : -1;
    const seated = (id: number) => f !== null && id >= 0 && id < 32 && f.cycles[id].present;
    // In a team round the board is grouped by team, best team first, each
    // under a row with the team's name and score.
    const teamOf = (id: number) => (f && f.teamMode && seated(id) ? f.cycles[id].team : -1);
    const teamPts = (t: number) => (f && t >= 0 ? f.teamScore(t) : 0);
    const rows = info.players
      .map((p) => ({ p, team: p.spectator ? -1 : teamOf(p.id), score: f && !p.spectator && seated(p.id) ? f.cycles[p.id].score : p.score }))
      .sort((a, b) => Number(a.p.spectator) - Number(b.p.spectator) || teamPts(b.team) - teamPts(a.team) || a.team - b.team ||
        b.score - a.score || a.p.id - b.p.id);
    // The board's rows are kept from one refresh to the next, a player's
    // and a team's each, and rewritten in place: only what changed is
    // written, and a new order moves them. With 32 players the lags change
    // at nearly every refresh and the scores and order at every death:
    // building the board afresh 4 times a second was a tenth of the main
    // thread's script time, and afresh at each change of score still 1-2 ms.
    const lagText = (p: (typeof rows)[number]["p"]) => (p.spectator || p.id === you ? "" : fmtMs(p.predictedLagMs));
    const next = new Map<string, BoardRow>();
    const order: HTMLElement[] = [];
    const row = (key: string, player: boolean): BoardRow => {
      const r = this.boardRows.get(key) ?? boardRow(player);
      next.set(key, r);
      order.push(r.tr);
      return r;
    };
    let team = -1;
    for (const { p, score, team: t } of rows) {
      if (t >= 0 && t !== team) {
        const h = row(`t${t}`, false);
        setRow(h, `team${f && you >= 0 && f.cycles[you].present && f.cycles[you].team === t ? " yours" : ""}`, t, teamCSS(t),
          `${teamName(t)} team`, String(teamPts(t)), "");
      }
      team = t;
      let key = `${p.spectator ? "s" : "p"}${p.id}`;
      while (next.has(key)) key += "+"; // spectators may share an id
      const cls = p.id === you && !p.spectator ? "you" : p.spectator ? "spec" : p.connected || p.bot ? "" : "gone";
      setRow(row(key, true), t >= 0 ? (cls ? `${cls} member` : "member") : cls, t, p.spectator ? "" : colorCSS(p.id),
        p.name + (p.spectator ? " (watching)" : p.connected || p.bot ? "" : " (away)"), p.spectator ? "" : String(score), lagText(p));
    }
    this.boardRows = next;
    if (order.length !== this.boardOrder.length || order.some((tr, i) => tr !== this.boardOrder[i])) {
      this.board.replaceChildren(...order);
      this.boardOrder = order;
    }
    if (this.board.parentElement !== this.scores) this.scores.replaceChildren(this.board);
    const charity = info.charityMode === "off" ? "off" : `${info.charityMode} ${fmtMs(info.charityMs)}`;
    const [room, ping, lead, char] = this.statusParts();
    // A Practice room by what it is (its part's title keeps the name).
    setText(room, isPracticeRoom(this.room) ? "Practice vs bots" : this.room);
    setText(ping, `ping ${fmtMs(info.pingMs)}`);
    setText(lead, `lead ${fmtMs(info.leadMs)}`);
    setText(char, `charity ${charity}`);
  }

  /** frame refreshes the countdown, round messages, gauges, feed, summary and sound (cheap when nothing changes). */
  frame(f: Frame, names: (id: number) => string, follow: number, now: number): void {
    this.gauges.frame(f, follow);
    this.feed.frame(f, names, now);
    this.summary.frame(f, this.info, names, now);
    this.sound.frame(f, follow);
    this.death(f, names, now);
    const ph = f.phase;
    if (ph === Phase.Play && this.lastPhase === Phase.Prepare) this.goUntil = now + 800;
    this.lastPhase = ph;
    // The summary, while it lasts into a countdown, comes first: the hint follows once it closes.
    const hint = this.hints && !this.summary.visible && (ph === Phase.Prepare || (ph === Phase.Play && now < this.goUntil));
    if (this.hint.hidden === hint) this.hint.hidden = !hint;
    let big = "";
    let small = "";
    const you = f.you;
    if (ph === Phase.Waiting) {
      big = "Waiting for players";
    } else if (ph === Phase.Prepare) {
      const s = Math.max(0, (f.phaseEnd - f.tick) / f.tickRate);
      big = String(Math.ceil(s));
      small = `Round ${f.round} — get ready`;
    } else if (ph === Phase.Play && now < this.goUntil) {
      big = "GO";
    }
    // While the summary shows, it holds the standings: it takes the scores' and the feed's room.
    const over = this.summary.visible;
    if (over !== this.game.classList.contains("over")) this.game.classList.toggle("over", over);
    // While your own cycle rides, the middle of the screen is the way ahead:
    // what waits (the offer to go fullscreen sideways) steps aside.
    const riding = ph === Phase.Play && you >= 0 && f.cycles[you].inRound && f.cycles[you].alive;
    if (riding !== this.game.classList.contains("riding")) this.game.classList.toggle("riding", riding);
    if (ph === Phase.Play && follow >= 0 && follow !== you) {
      const why = you < 0 || f.cycles[you].inRound ? "" : "You ride from the next round — ";
      const how = this.coarse.matches ? "tap left or right to switch" : "←/→ to switch";
      small = `${why}watching ${names(follow)} · ${how}`;
    }
    setText(this.center, big);
    setText(this.sub, small);
  }

  /** death names what killed you, in the middle of the screen, as soon as
   * the frame shows it (a rollback that undoes the death takes it back). */
  private death(f: Frame, names: (id: number) => string, now: number): void {
    const you = f.you;
    const key = `${f.match}/${f.round}`;
    const c = you >= 0 ? f.cycles[you] : null;
    const dead = c !== null && c.inRound && !c.alive && c.cause !== Cause.None && c.cause !== Cause.Left;
    if (dead && this.diedIn !== key) {
      this.diedIn = key;
      this.diedAt = now;
      const what = deathText(c, names);
      setText(this.deathMsg, `Derezzed — ${what}`);
    } else if (!dead && this.diedIn === key) {
      this.diedIn = ""; // undone by a rollback
    }
    const show = this.diedIn === key && now - this.diedAt < DEATH_MSG_MS;
    if (this.deathMsg.hidden === show) this.deathMsg.hidden = !show;
  }

  /** statusParts returns the status line's four parts, made on first use, each with its explanation. */
  private statusParts(): HTMLElement[] {
    if (this.parts.length > 0) return this.parts;
    if (this.status.children.length === 0) {
      const part = (title: string) => {
        const s = el("span");
        s.title = title;
        return s;
      };
      this.status.append(part(isPracticeRoom(this.room) ? `the room: ${this.room}, yours alone` : "the room"), " · ", part("ping: the round trip from your browser to the server and back"), " · ",
        part("lead: how far ahead of the server your game runs, so that your turns reach it in time"), " · ",
        part("ping charity: how the delay between two players is shared; each sees the other with the average of your pings"));
    }
    this.parts = Array.from(this.status.querySelectorAll("span"));
    return this.parts;
  }

  /** showBanner puts up a connection message; back offers a way to the lobby. */
  showBanner(text: string, back: boolean): void {
    setText(this.bannerText, text);
    this.bannerBack.hidden = !back;
    this.banner.hidden = false;
  }

  hideBanner(): void {
    this.banner.hidden = true;
  }
}

/** A row of the scoreboard: a player's or a team's, its cells, and the swatch's colour and row's team as written. */
interface BoardRow {
  tr: HTMLElement;
  sw: HTMLElement;
  name: HTMLElement;
  score: HTMLElement;
  lag: HTMLElement;
  color: string;
  team: number;
}

/** boardRow makes an empty row: a player's lag cell explains itself. */
function boardRow(player: boolean): BoardRow {
  const r = { tr: el("tr"), sw: el("td", "", "swatch"), name: el("td", "", "name"), score: el("td", "", "score"), lag: el("td", "", "lag"), color: "", team: -1 };
  if (player) r.lag.title = "effective lag: how old this player's position is on your screen";
  r.tr.append(r.sw, r.name, r.score, r.lag);
  return r;
}

/** setRow writes what changed of row r: its classes, team (-1 none), swatch colour ("" none) and cells. */
function setRow(r: BoardRow, cls: string, team: number, color: string, name: string, score: string, lag: string): void {
  if (r.tr.className !== cls) r.tr.className = cls;
  if (r.team !== team) {
    r.team = team;
    if (team >= 0) r.tr.dataset.team = String(team);
    else delete r.tr.dataset.team;
  }
  if (r.color !== color) {
    r.color = color;
    r.sw.style.background = color;
  }
  setText(r.name, name);
  setText(r.score, score);
  setText(r.lag, lag);
}
