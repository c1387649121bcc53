// Round and match summaries. A round's summary (#summary) appears when the
// round ends for you: at its end, or at your death when no other human rides
// on (a round of bots alone then ends early, without a winner: FINISH_TYPE
// express). It says who won or why nobody did, where you placed and what
// ended your ride, the points each player and team made this round, the
// match standings, and for each rival the lag each of you saw the other with
// (ping charity shares it: netcode.md section 3). When the round ends a match
// (LIMIT_ROUNDS, LIMIT_SCORE), the match summary (#match-summary) shows the
// final standings and the match's winner. Both stay MIN_SHOW_MS at least,
// into the next round's countdown if need be, unless the player closes them.
import type { Info, PlayerInfo } from "../core/core";
import type { CycleView, Frame } from "../core/frame";
import { Cause, MAX_PLAYERS, Phase } from "../core/layout";
import { colorCSS, teamCSS, teamName } from "../render/palette";
import { $, el, setText } from "./dom";

/** Standings rows shown; the rest of a full room is summed up in one line. */
const MAX_ROWS = 8;
/** How long a summary stays at least, unless closed: 5 s to read it, and a
 * second more so that it is never cut at the moment the next round starts. */
export const MIN_SHOW_MS = 6000;

type Names = (id: number) => string;

export class Summary {
  private readonly root = $("summary");
  private readonly title = $("summary-title");
  private readonly you = $("summary-you");
  private readonly next = $("summary-next");
  private readonly table = $("summary-table");
  private readonly matchRoot = $("match-summary");
  private readonly matchTitle = $("match-summary-title");
  private readonly matchTable = $("match-summary-table");
  /** The round shown ("match/round"), "" none; when it was first shown; its last tick on screen. */
  private key = "";
  private shownAt = 0;
  private tick = 0;
  private closed = "";
  /** The match summary's round, when it was first shown. */
  private matchKey = "";
  private matchAt = 0;
  private rendered = "";

  constructor(signal: AbortSignal) {
    this.root.hidden = true;
    this.matchRoot.hidden = true;
    $("summary-close").addEventListener("click", () => this.close(), { signal });
  }

  /** visible reports whether a summary is on screen. */
  get visible(): boolean {
    return !this.root.hidden || !this.matchRoot.hidden;
  }

  /** roundTick is a tick of the round the summary shows ("watch again" looks the round up by it). */
  get roundTick(): number {
    return this.tick;
  }

  /** close hides the summaries until the next round ends. */
  close(): void {
    this.closed = this.key;
    this.root.hidden = true;
    this.matchRoot.hidden = true;
  }

  frame(f: Frame, info: Info | null, name: Names, now: number): void {
    const key = `${f.match}/${f.round}`;
    const ended = f.phase === Phase.Over || (f.phase === Phase.Play && endedForYou(f));
    if (ended && key !== this.key) {
      this.key = key;
      this.shownAt = now;
      this.rendered = "";
    }
    const current = key === this.key;
    const show = this.key !== "" && this.closed !== this.key && ((current && ended) || now - this.shownAt < MIN_SHOW_MS);
    if (this.root.hidden === show) this.root.hidden = !show;
    if (current && f.matchOver && this.matchKey !== key) {
      this.matchKey = key;
      this.matchAt = now;
      this.renderMatch(f, name);
    }
    const showMatch = this.matchKey !== "" && this.matchKey === this.key && this.closed !== this.key &&
      ((current && f.matchOver) || now - this.matchAt < MIN_SHOW_MS);
    if (this.matchRoot.hidden === showMatch) this.matchRoot.hidden = !showMatch;
    // The match's standings take the round table's room.
    this.table.hidden = showMatch;
    if (!show) return;
    if (!current) {
      // The next round's countdown: this round's numbers stay as they were.
      const s = Math.max(0, Math.ceil((f.phaseEnd - f.tick) / f.tickRate));
      setText(this.next, f.phase === Phase.Prepare ? `Round ${f.round} starts in ${s} s` : "");
      return;
    }
    this.tick = f.tick;
    setText(this.next, f.phase === Phase.Over ? `Next round in ${Math.max(0, Math.ceil((f.phaseEnd - f.tick) / f.tickRate))} s` : "");
    const alive = f.cycles.filter((c) => c.inRound && c.alive).length;
    const key2 = `${key}/${f.phase === Phase.Over}/${f.winner}/${alive}/${info ? info.players.length : 0}`;
    if (key2 === this.rendered) return;
    this.rendered = key2;
    setText(this.title, roundTitle(f, name));
    setText(this.you, youLine(f, name));
    this.table.replaceChildren(...(f.teamMode ? teamRows(f, info, name) : rows(f, info, name)));
  }

  /** renderMatch fills the match summary from the round that ended it: the scores reset with the next round. */
  private renderMatch(f: Frame, name: Names): void {
    setText(this.matchTitle, matchTitle(f, name));
    const head = el("tr");
    head.append(el("th", ""), el("th", f.teamMode ? "team / player" : "player"), el("th", "points"), el("th", "kills"), el("th", "deaths"));
    const out = [head];
    const players = f.cycles.filter((c) => c.present);
    const row = (c: CycleView, rank: string, cls: string) => {
      const tr = el("tr", "", `${cls}${c.id === f.you ? " you" : ""}`);
      const sw = el("td", "", "swatch");
      sw.style.background = colorCSS(c.id);
      tr.append(sw, el("td", `${rank}${name(c.id)}`, "name"), el("td", String(c.score), "num"), el("td", String(c.kills), "num"),
        el("td", String(c.deaths), "num"));
      return tr;
    };
    if (f.teamMode) {
      const teams = [...new Set(players.map((c) => c.team))].sort((a, b) => f.teamScore(b) - f.teamScore(a) || a - b);
      teams.forEach((t, rank) => {
        const tr = el("tr", "", "team");
        const sw = el("td", "", "swatch");
        sw.style.background = teamCSS(t);
        tr.append(sw, el("td", `${rank + 1}. ${teamName(t)} team`, "name"), el("td", String(f.teamScore(t)), "num"), el("td", ""), el("td", ""));
        out.push(tr);
        for (const c of players.filter((c) => c.team === t).sort(byScore)) out.push(row(c, "", "member"));
      });
    } else {
      players.sort(byScore).forEach((c, rank) => {
        if (rank < MAX_ROWS || c.id === f.you) out.push(row(c, `${rank + 1}. `, ""));
      });
    }
    this.matchTable.replaceChildren(...out);
  }
}

function byScore(a: CycleView, b: CycleView): number {
  return b.score - a.score || a.id - b.id;
}

/** endedForYou: you died, and no other human rides on in this round (bots may). */
function endedForYou(f: Frame): boolean {
  const you = f.you;
  if (you < 0 || !f.cycles[you].inRound || f.cycles[you].alive) return false;
  return !f.cycles.some((c) => c.human && c.alive && c.inRound);
}

/** roundTitle says who won the round, or plainly that nobody did and why. */
export function roundTitle(f: Frame, name: Names): string {
  const riding = f.cycles.filter((c) => c.inRound && c.alive);
  if (f.phase !== Phase.Over) {
    return `Round ${f.round} — you are out; ${riding.length === 1 ? `${name(riding[0].id)} rides` : `${riding.length} ride`} on`;
  }
  return `Round ${f.round} — ${winnerText(f, name)}`;
}

/** winnerText names who won the round: the player, or in a team round the
 * team and its members ("Blue team wins: alice, bob"); or why nobody did. */
export function winnerText(f: Frame, name: Names): string {
  const w = f.winner;
  if (w < 0) {
    const riding = f.cycles.filter((c) => c.inRound && c.alive).length;
    if (riding > 0) return `nobody won: no human was left riding, so the round ended early (${riding} still riding)`;
    return "nobody won: the last riders crashed at the same moment";
  }
  if (!f.teamMode) return w === f.you ? "you win" : `${name(w)} wins`;
  const members = f.cycles.filter((c) => c.present && c.inRound && c.team === w).map((c) => name(c.id));
  const yours = f.you >= 0 && f.cycles[f.you].present && f.cycles[f.you].team === w;
  return `${teamName(w)} team wins${yours ? " (your team)" : ""}: ${members.join(", ")}`;
}

/** youLine: your place among the round's riders, what ended your ride, your points this round. */
export function youLine(f: Frame, name: Names): string {
  const you = f.you;
  if (you < 0) return "You watched this round.";
  const me = f.cycles[you];
  if (!me.inRound) return "You joined during this round: you ride from the next one.";
  const riders = f.cycles.filter((c) => c.inRound);
  const ahead = riders.filter((c) => c.id !== you && (c.alive || (!me.alive && c.deathTick > me.deathTick))).length;
  const won = f.phase === Phase.Over && f.winner >= 0 && (f.teamMode ? me.team === f.winner : you === f.winner);
  const how = me.alive ? (won ? "you won the round" : "you were still riding") : deathText(me, name);
  return `You placed ${ordinal(ahead + 1)} of ${riders.length} · ${how} · ${points(me.roundScore)} this round`;
}

/** deathText says what ended a cycle's ride, from its rider's point of view. */
export function deathText(c: CycleView, name: Names): string {
  const trapped = c.killer >= 0 && c.killer !== c.id;
  const by = trapped ? `, trapped by ${name(c.killer)}` : "";
  switch (c.cause) {
    case Cause.Wall:
      return trapped ? `cut off by ${name(c.killer)}` : "hit a wall";
    case Cause.Rim:
      return `hit the rim${by}`;
    case Cause.OwnWall:
      return `your own wall${by}`;
    case Cause.Collision:
      return `crashed head-on${by}`;
    case Cause.Left:
      return "left the round";
    case Cause.Zone:
      return `a death zone${by}`;
    default:
      return "crashed";
  }
}

function matchTitle(f: Frame, name: Names): string {
  const present = f.cycles.filter((c) => c.present);
  if (f.teamMode) {
    const teams = [...new Set(present.map((c) => c.team))].sort((a, b) => f.teamScore(b) - f.teamScore(a) || a - b);
    if (teams.length === 0) return "Match over";
    const top = teams.filter((t) => f.teamScore(t) === f.teamScore(teams[0]));
    if (top.length > 1) return `Match over — a tie at ${f.teamScore(top[0])}: ${top.map((t) => `${teamName(t)} team`).join(", ")}`;
    const yours = f.you >= 0 && f.cycles[f.you].present && f.cycles[f.you].team === top[0];
    return `Match over — ${teamName(top[0])} team wins the match${yours ? " (your team)" : ""} with ${f.teamScore(top[0])}`;
  }
  const sorted = [...present].sort(byScore);
  if (sorted.length === 0) return "Match over";
  const top = sorted.filter((c) => c.score === sorted[0].score);
  if (top.length > 1) return `Match over — a tie at ${top[0].score}: ${top.map((c) => name(c.id)).join(", ")}`;
  const w = top[0];
  return `Match over — ${w.id === f.you ? "you win" : `${name(w.id)} wins`} the match with ${w.score}`;
}

/** teamRows: the standings by team, best first, each team's row (points
 * this round, match total) above its members'. */
function teamRows(f: Frame, info: Info | null, name: Names): HTMLElement[] {
  const byId = players(info);
  const me = byId.get(f.you);
  const present = f.cycles.filter((c) => c.present);
  const teams = [...new Set(present.map((c) => c.team))].sort((a, b) => f.teamScore(b) - f.teamScore(a) || a - b);
  const head = el("tr");
  head.append(el("th", ""), el("th", "team / player"), el("th", "round"), el("th", "total"), el("th", "lag: you saw / they saw"));
  const out = [head];
  let rows = 0;
  for (const t of teams) {
    const tr = el("tr", "", `team${t === f.winner ? " won" : ""}`);
    tr.dataset.team = String(t);
    const sw = el("td", "", "swatch");
    sw.style.background = teamCSS(t);
    tr.append(sw, el("td", `${teamName(t)} team`, "name"), el("td", signed(f.teamRound(t)), "num"), el("td", String(f.teamScore(t)), "num"), el("td", "", "lag"));
    out.push(tr);
    for (const c of present.filter((c) => c.team === t).sort(byScore)) {
      if (rows++ >= MAX_ROWS * 2 && c.id !== f.you) continue;
      const m = el("tr", "", `member${c.id === f.you ? " you" : ""}`);
      const msw = el("td", "", "swatch");
      msw.style.background = colorCSS(c.id);
      m.append(msw, el("td", name(c.id), "name"), el("td", signed(c.roundScore), "num"), el("td", String(c.score), "num"), el("td", lags(me, byId.get(c.id)), "lag"));
      out.push(m);
    }
  }
  return out;
}

function rows(f: Frame, info: Info | null, name: Names): HTMLElement[] {
  const present = f.cycles.filter((c) => c.present).sort(byScore);
  const byId = players(info);
  const me = byId.get(f.you);
  const head = el("tr");
  head.append(el("th", ""), el("th", "player"), el("th", "round"), el("th", "total"), el("th", "lag: you saw / they saw"));
  const out = [head];
  present.forEach((c, rank) => {
    if (rank >= MAX_ROWS && c.id !== f.you) return;
    const tr = el("tr", "", c.id === f.you ? "you" : "");
    const sw = el("td", "", "swatch");
    sw.style.background = colorCSS(c.id);
    tr.append(sw, el("td", `${rank + 1}. ${name(c.id)}`, "name"), el("td", signed(c.roundScore), "num"), el("td", String(c.score), "num"),
      el("td", lags(me, byId.get(c.id)), "lag"));
    out.push(tr);
  });
  if (present.length > MAX_ROWS + 1) out.push(el("tr", `… ${present.length - MAX_ROWS} more`, "more"));
  return out;
}

function players(info: Info | null): Map<number, PlayerInfo> {
  const byId = new Map<number, PlayerInfo>();
  for (const p of info?.players ?? []) if (!p.spectator && p.id < MAX_PLAYERS) byId.set(p.id, p);
  return byId;
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}

function points(n: number): string {
  return `${signed(n)} point${Math.abs(n) === 1 ? "" : "s"}`;
}

/** ordinal writes 1st, 2nd, 3rd, 4th, 11th, 21st. */
export function ordinal(n: number): string {
  const t = n % 100;
  const s = t >= 11 && t <= 13 ? "th" : ["th", "st", "nd", "rd"][n % 10] ?? "th";
  return `${n}${s}`;
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
