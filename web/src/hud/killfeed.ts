// Kill feed: who cut off whom, who hit the rim, for a few seconds each.
import type { Frame } from "../core/frame";
import { Cause, ZoneEffect, ZoneState } from "../core/layout";
import { colorCSS, teamCSS, teamName } from "../render/palette";
import { $, el } from "./dom";

const KEEP_MS = 6000;
const MAX_LINES = 5;

interface Line {
  round: number;
  id: number;
  at: number;
  node: HTMLElement;
}

export class KillFeed {
  private readonly root = $("killfeed");
  private readonly lines: Line[] = [];
  private wasDead: boolean[] = [];
  private wasConquered: boolean[] = [];
  private round = -1;

  constructor() {
    this.root.replaceChildren(); // a new game: no old news
  }

  /** frame adds a line for each cycle that died since the last frame. A
   * death that a rollback undoes (the cycle rides on) takes its line back. */
  frame(f: Frame, name: (id: number) => string, now: number): void {
    const fresh = f.round !== this.round;
    if (fresh) this.round = f.round;
    for (const c of f.cycles) {
      const dead = c.inRound && !c.alive && c.cause !== Cause.None;
      const was = this.wasDead[c.id] ?? false;
      this.wasDead[c.id] = dead;
      if (fresh) continue; // joined mid-round, or a new round: no old news
      if (dead && !was) {
        const teamKill = f.teamMode && c.killer >= 0 && c.killer !== c.id && f.cycles[c.killer].team === c.team;
        this.add(f.round, c.id, line(c.id, c.cause, c.killer, name, teamKill), now);
      }
      else if (!dead && was) this.remove((l) => l.round === f.round && l.id === c.id);
    }
    // A fortress conquered: its owner's zone fell (line ids past the cycles').
    f.mapZones.forEach((z, k) => {
      const fell = z.effect === ZoneEffect.Fortress && z.state === ZoneState.Collapsing && z.owner >= 0;
      const was = this.wasConquered[k] ?? false;
      this.wasConquered[k] = fell;
      if (fresh) return;
      const id = f.cycles.length + k;
      if (fell && !was) this.add(f.round, id, fortressLine(f, z.owner, name), now);
      else if (!fell && was) this.remove((l) => l.round === f.round && l.id === id);
    });
    this.remove((l) => now - l.at > KEEP_MS);
  }

  private add(round: number, id: number, node: HTMLElement, now: number): void {
    this.lines.push({ round, id, at: now, node });
    this.root.append(node);
    while (this.lines.length > MAX_LINES) this.remove((l) => l === this.lines[0]);
  }

  private remove(drop: (l: Line) => boolean): void {
    for (let i = this.lines.length - 1; i >= 0; i--) {
      if (drop(this.lines[i])) {
        this.lines[i].node.remove();
        this.lines.splice(i, 1);
      }
    }
  }
}

/** fortressLine renders a conquest: "Blue's fortress fell" (with one player
 * a team, the player's name). */
function fortressLine(f: Frame, owner: number, name: (id: number) => string): HTMLElement {
  const div = el("div", "", "kill");
  const who = el("span", f.teamMax <= 1 ? name(owner) : teamName(owner), "who");
  who.style.color = f.teamMax <= 1 ? colorCSS(owner) : teamCSS(owner);
  div.append(who, "'s fortress fell");
  return div;
}

/** line renders one death: "alice cut off bob", "Flynn hit the rim". A rim
 * or own-wall death may credit the enemy whose wall trapped the cycle; a
 * teammate's wall (teamKill) is marked as a team kill, which scores nothing. */
export function line(id: number, cause: number, killer: number, name: (id: number) => string, teamKill = false): HTMLElement {
  const div = el("div", "", teamKill ? "kill teamkill" : "kill");
  const who = (p: number) => {
    const s = el("span", name(p), "who");
    s.style.color = colorCSS(p);
    return s;
  };
  const trapped = killer >= 0 && killer !== id;
  switch (cause) {
    case Cause.Wall:
      if (trapped) div.append(who(killer), " cut off ", who(id));
      else div.append(who(id), " hit a wall");
      break;
    case Cause.Rim:
      div.append(who(id), " hit the rim");
      break;
    case Cause.OwnWall:
      div.append(who(id), " ran into their own wall");
      break;
    case Cause.Collision:
      div.append(who(id), " crashed head-on");
      break;
    case Cause.Left:
      div.append(who(id), " left");
      return div;
    case Cause.Zone:
      div.append(who(id), " rode into a death zone");
      break;
    default:
      div.append(who(id), " crashed");
  }
  if (trapped && cause !== Cause.Wall) div.append(", trapped by ", who(killer));
  if (teamKill) div.append(el("span", " (team kill)", "tk"));
  return div;
}
