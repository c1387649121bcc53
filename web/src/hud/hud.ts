// The in-game HUD: scores, connection numbers, countdown and winner, gauges,
// kill feed, round summary, sound, the connection banner, and who the camera
// follows.
import type { Info } from "../core/core";
import type { Frame } from "../core/frame";
import { Phase } from "../core/layout";
import { colorCSS, teamCSS, teamName } from "../render/colors";
import { $, el, fmtMs, setText } from "./dom";
import { Gauges } from "./gauges";
import { KillFeed } from "./killfeed";
import type { Sound } from "./sound";
import { Summary } from "./summary";

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
  private readonly summary = new Summary();
  private info: Info | null = null;
  private lastScores = "";
  private goUntil = 0;
  private lastPhase = -1;

  /** signal removes the listeners when the game ends: the elements outlive it. */
  constructor(private readonly room: string, onBack: () => void, private readonly sound: Sound, signal: AbortSignal) {
    this.bannerBack.addEventListener("click", onBack, { signal });
    $("leave").addEventListener("click", onBack, { signal });
    this.muteButton.addEventListener("click", () => this.toggleMute(), { signal });
    this.showMute();
  }

  toggleMute(): void {
    this.sound.unlock();
    this.sound.toggleMute();
    this.showMute();
  }

  private showMute(): void {
    setText(this.muteButton, this.sound.isMuted ? "Muted (M)" : "Sound (M)");
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
    const key = JSON.stringify(rows.map((r) => [r.p.id, r.p.name, r.score, r.team, teamPts(r.team), Math.round(r.p.predictedLagMs),
      r.p.connected, r.p.spectator, r.p.bot, colorCSS(r.p.id)]));
    if (key !== this.lastScores) {
      this.lastScores = key;
      const table = el("table");
      let team = -1;
      for (const { p, score, team: t } of rows) {
        if (t >= 0 && t !== team) {
          const head = el("tr", "", `team${f && you >= 0 && f.cycles[you].present && f.cycles[you].team === t ? " yours" : ""}`);
          head.dataset.team = String(t);
          const sw = el("td", "", "swatch");
          sw.style.background = teamCSS(t);
          head.append(sw, el("td", `${teamName(t)} team`, "name"), el("td", String(teamPts(t)), "score"), el("td", "", "lag"));
          table.append(head);
        }
        team = t;
        const tr = el("tr", "", p.id === you && !p.spectator ? "you" : p.spectator ? "spec" : p.connected || p.bot ? "" : "gone");
        if (t >= 0) {
          tr.classList.add("member");
          tr.dataset.team = String(t);
        }
        const sw = el("td", "", "swatch");
        if (!p.spectator) sw.style.background = colorCSS(p.id);
        const name = el("td", p.name + (p.spectator ? " (watching)" : ""), "name");
        const sc = el("td", p.spectator ? "" : String(score), "score");
        const lag = el("td", p.spectator || p.id === you ? "" : fmtMs(p.predictedLagMs), "lag");
        lag.title = "effective lag: how old this player's position is on your screen";
        tr.append(sw, name, sc, lag);
        table.append(tr);
      }
      this.scores.replaceChildren(table);
    }
    const charity = info.charityMode === "off" ? "off" : `${info.charityMode} ${fmtMs(info.charityMs)}`;
    setText(this.status, `${this.room} · ping ${fmtMs(info.pingMs)} · lead ${fmtMs(info.leadMs)} · charity ${charity}`);
  }

  /** frame refreshes the countdown, round messages, gauges, feed, summary and sound (cheap when nothing changes). */
  frame(f: Frame, names: (id: number) => string, follow: number, now: number): void {
    this.gauges.frame(f, follow);
    this.feed.frame(f, names, now);
    this.summary.frame(f, this.info, names);
    this.sound.frame(f, follow);
    const ph = f.phase;
    if (ph === Phase.Play && this.lastPhase === Phase.Prepare) this.goUntil = now + 800;
    this.lastPhase = ph;
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
    // While a round is over, the summary says who won and holds the standings.
    if ((ph === Phase.Over) !== this.game.classList.contains("over")) this.game.classList.toggle("over", ph === Phase.Over);
    if (ph === Phase.Play && follow >= 0 && follow !== you) {
      const why = you < 0 ? "" : f.cycles[you].inRound ? "Derezzed — " : "You ride from the next round — ";
      small = `${why}watching ${names(follow)} · ←/→ to switch`;
    }
    setText(this.center, big);
    setText(this.sub, small);
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
