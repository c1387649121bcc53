// Round summary, while a round is over: the winner (a team in a team round,
// with its members), the points each player and each team made this round,
// the match standings, the time to the next round, and for
// each rival the lag each of you saw the other with (ping charity shares it:
// netcode.md section 3).
import type { Info, PlayerInfo } from "../core/core";
import type { Frame } from "../core/frame";
import { MAX_PLAYERS, Phase } from "../core/layout";
import { colorCSS, teamCSS, teamName } from "../render/colors";
import { $, el, setText } from "./dom";

/** Standings rows shown; the rest of a full room is summed up in one line. */
const MAX_ROWS = 8;

export class Summary {
  private readonly root = $("summary");
  private readonly title = $("summary-title");
  private readonly next = $("summary-next");
  private readonly table = $("summary-table");
  /** Each slot's score when the current round began, NaN when not seen (joined mid-round). */
  private readonly base = new Float64Array(MAX_PLAYERS).fill(NaN);
  /** Each team's score when the current round began, NaN when not seen. */
  private readonly teamBase = new Float64Array(MAX_PLAYERS).fill(NaN);
  private round = -1;
  private match = -1;
  private shown = "";

  constructor() {
    this.root.hidden = true; // until a round is over
  }

  /** frame records the scores a round starts with, and shows the summary once it is over. */
  frame(f: Frame, info: Info | null, name: (id: number) => string): void {
    if (f.round !== this.round || f.match !== this.match) {
      // Scores only change in play: a round first seen in its countdown starts from these.
      this.round = f.round;
      this.match = f.match;
      for (const c of f.cycles) this.base[c.id] = f.phase === Phase.Prepare ? c.score : NaN;
      for (let t = 0; t < MAX_PLAYERS; t++) this.teamBase[t] = f.phase === Phase.Prepare ? f.teamScore(t) : NaN;
    }
    const over = f.phase === Phase.Over;
    if (this.root.hidden === over) this.root.hidden = !over;
    if (!over) {
      this.shown = "";
      return;
    }
    setText(this.next, `Next round in ${Math.max(0, Math.ceil((f.phaseEnd - f.tick) / f.tickRate))} s`);
    const key = `${f.match}/${f.round}/${f.winner}/${info ? info.players.length : 0}`;
    if (key === this.shown) return;
    this.shown = key;
    setText(this.title, `Round ${f.round} — ${winnerText(f, name)}`);
    this.table.replaceChildren(...(f.teamMode ? this.teamRows(f, info, name) : this.rows(f, info, name)));
  }

  /** teamRows: the standings by team, best first, each team's row (points
   * this round, match total) above its members'. */
  private teamRows(f: Frame, info: Info | null, name: (id: number) => string): HTMLElement[] {
    const byId = new Map<number, PlayerInfo>();
    for (const p of info?.players ?? []) if (!p.spectator) byId.set(p.id, p);
    const me = byId.get(f.you);
    const players = f.cycles.filter((c) => c.present);
    const teams = [...new Set(players.map((c) => c.team))].sort((a, b) => f.teamScore(b) - f.teamScore(a) || a - b);
    const head = el("tr");
    head.append(el("th", ""), el("th", "team / player"), el("th", "round"), el("th", "total"), el("th", "lag: you saw / they saw"));
    const out = [head];
    let rows = 0;
    for (const t of teams) {
      const tr = el("tr", "", `team${t === f.winner ? " won" : ""}`);
      tr.dataset.team = String(t);
      const sw = el("td", "", "swatch");
      sw.style.background = teamCSS(t);
      const gained = Number.isNaN(this.teamBase[t]) ? "" : signed(f.teamScore(t) - this.teamBase[t]);
      tr.append(sw, el("td", `${teamName(t)} team`, "name"), el("td", gained, "num"), el("td", String(f.teamScore(t)), "num"), el("td", "", "lag"));
      out.push(tr);
      for (const c of players.filter((c) => c.team === t).sort((a, b) => b.score - a.score || a.id - b.id)) {
        if (rows++ >= MAX_ROWS * 2 && c.id !== f.you) continue;
        const m = el("tr", "", `member${c.id === f.you ? " you" : ""}`);
        const msw = el("td", "", "swatch");
        msw.style.background = colorCSS(c.id);
        const got = Number.isNaN(this.base[c.id]) ? "" : signed(c.score - this.base[c.id]);
        m.append(msw, el("td", name(c.id), "name"), el("td", got, "num"), el("td", String(c.score), "num"), el("td", lags(me, byId.get(c.id)), "lag"));
        out.push(m);
      }
    }
    return out;
  }

  private rows(f: Frame, info: Info | null, name: (id: number) => string): HTMLElement[] {
    const players = f.cycles.filter((c) => c.present).sort((a, b) => b.score - a.score || a.id - b.id);
    const byId = new Map<number, PlayerInfo>();
    for (const p of info?.players ?? []) if (!p.spectator) byId.set(p.id, p);
    const me = byId.get(f.you);
    const head = el("tr");
    head.append(el("th", ""), el("th", "player"), el("th", "round"), el("th", "total"), el("th", "lag: you saw / they saw"));
    const out = [head];
    players.forEach((c, rank) => {
      if (rank >= MAX_ROWS && c.id !== f.you) return;
      const tr = el("tr", "", c.id === f.you ? "you" : "");
      const sw = el("td", "", "swatch");
      sw.style.background = colorCSS(c.id);
      const gained = Number.isNaN(this.base[c.id]) ? "" : signed(c.score - this.base[c.id]);
      tr.append(sw, el("td", `${rank + 1}. ${name(c.id)}`, "name"), el("td", gained, "num"), el("td", String(c.score), "num"),
        el("td", lags(me, byId.get(c.id)), "lag"));
      out.push(tr);
    });
    if (players.length > MAX_ROWS + 1) out.push(el("tr", `… ${players.length - MAX_ROWS} more`, "more"));
    return out;
  }
}

/** winnerText names who won the round: the player, or in a team round the
 * team and its members ("Blue team wins: alice, bob"). */
export function winnerText(f: Frame, name: (id: number) => string): string {
  const w = f.winner;
  if (w < 0) return "draw";
  if (!f.teamMode) return w === f.you ? "you win" : `${name(w)} wins`;
  const members = f.cycles.filter((c) => c.present && c.inRound && c.team === w).map((c) => name(c.id));
  const yours = f.you >= 0 && f.cycles[f.you].present && f.cycles[f.you].team === w;
  return `${teamName(w)} team wins${yours ? " (your team)" : ""}: ${members.join(", ")}`;
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

/**
 * lags says how old each of the pair saw the other: U_you(them) as measured
 * (the prediction until there are samples), and U_them(you) from the
 * published latencies and leads, o_you + o_them + L_them - L_you. Their sum
 * is the two round trips whatever the charity; the charity sets the split.
 * A spectator (me undefined) sees only the first.
 */
export function lags(me: PlayerInfo | undefined, them: PlayerInfo | undefined): string {
  if (!them || (me && me.id === them.id)) return "";
  const youSaw = them.measuredLagMs > 0 ? them.measuredLagMs : them.predictedLagMs;
  // A bot decides on the server's own present: it sees no lag to split.
  if (!me || them.bot) return `${Math.round(youSaw)} ms`;
  const theySaw = me.latencyMs + them.latencyMs + them.leadMs - me.leadMs;
  return `${Math.round(youSaw)} / ${Math.round(theySaw)} ms`;
}
