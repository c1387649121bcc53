// The lobby's list of recent rounds (GET /api/replays): room, players,
// winner, length and when, newest first. A round whose file fails its
// checks is listed as damaged, with the reason, and offers nothing to play.
// It refreshes while the lobby shows (it watches the lobby's hidden
// attribute, so the lobby's code need not know about it).
import { $, el } from "../hud/dom";
import { roomLabel } from "../net/practice";
import { colorCSS } from "../render/palette";
import { fmtAgo, fmtClock, listReplays, type ReplayEntry } from "./api";

/** Rounds listed, and how often the list refreshes while the lobby shows. */
const SHOWN = 12;
const REFRESH_MS = 10000;

export class RecentRounds {
  private readonly lobby = $("lobby");
  private readonly list = $("replays");
  private timer = 0;
  private shownKey = "";

  constructor(private readonly watch: (id: string) => void) {
    new MutationObserver(() => this.visibility()).observe(this.lobby, { attributes: true, attributeFilter: ["hidden"] });
    this.visibility();
  }

  private visibility(): void {
    clearInterval(this.timer);
    if (this.lobby.hidden) return;
    void this.refresh();
    this.timer = window.setInterval(() => void this.refresh(), REFRESH_MS);
  }

  private async refresh(): Promise<void> {
    let rounds: ReplayEntry[];
    try {
      rounds = await listReplays(SHOWN);
    } catch {
      this.hint("The list of rounds is unavailable.");
      return;
    }
    if (rounds.length === 0) {
      this.hint("No rounds recorded yet: play one, and it shows here.");
      return;
    }
    // Rebuilt only when it changed: a list rebuilt under the pointer would swallow a click.
    const key = JSON.stringify(rounds.map((r) => [r.id, r.damaged, Math.floor((Date.now() - r.createdMs) / 60000)]));
    if (key === this.shownKey) return;
    this.shownKey = key;
    const table = el("table");
    const head = el("tr");
    head.append(el("th", "Room"), el("th", "Players", "players"), el("th", "Winner"), el("th", "Length", "len"), el("th", "When", "when"), el("th"));
    table.append(head);
    for (const r of rounds) table.append(this.row(r));
    this.list.replaceChildren(table);
  }

  private row(r: ReplayEntry): HTMLElement {
    const tr = el("tr", "", r.damaged ? "damaged" : "");
    tr.dataset.id = r.id;
    const last = el("td");
    if (r.damaged) {
      const bad = el("span", r.old ? "older version" : "damaged", "bad");
      bad.title = r.problem ?? "the file failed its checks";
      last.append(bad);
    } else {
      const go = el("button", "Watch", "small watch");
      go.setAttribute("type", "button");
      // A list of buttons all called "Watch" says nothing read out of its row.
      go.setAttribute("aria-label", `Watch the round in ${r.room ? roomLabel(r.room) : "?"}, ${fmtAgo(r.createdMs)}`);
      go.addEventListener("click", () => this.watch(r.id));
      last.append(go);
    }
    const players = el("td", "", "players");
    players.title = r.players.map((p) => p.name + (p.bot ? " (bot)" : "")).join(", ");
    r.players.forEach((p, i) => {
      const s = el("span", p.name);
      s.style.color = colorCSS(p.slot);
      players.append(...(i > 0 ? [", ", s] : [s]));
    });
    const winner = r.damaged ? "?" : r.decided ? (r.winner >= 0 ? r.winnerName : "draw") : "—";
    const room = el("td", r.room ? roomLabel(r.room) : "?", "rname");
    room.title = r.room;
    tr.append(room, players, el("td", winner, "winner"), el("td", r.damaged ? "" : fmtClock(r.seconds), "len"),
      el("td", fmtAgo(r.createdMs), "when"), last);
    return tr;
  }

  private hint(text: string): void {
    this.shownKey = "";
    this.list.replaceChildren(el("p", text, "hint"));
  }
}
