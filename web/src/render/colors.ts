// Player colours: distinct hues, bright enough to glow on a dark floor. In a
// round played in teams every player takes a shade of its team's colour
// (Armagetron's team colours, docs/physics.md section 4), so a team reads as
// one colour family; your own cycle is the palest shade of yours.
import { Color, SRGBColorSpace } from "three";
import type { Frame } from "../core/frame";
import { MAX_PLAYERS, NO_TEAM } from "../core/layout";

const PALETTE = [
  "#00e5ff", "#ff9a1f", "#ff3df2", "#7dff3d", "#ffe93d", "#ff3d55", "#3d7dff", "#3dffb4",
  "#c93dff", "#ff6f3d", "#b6ff3d", "#3dd0ff", "#ff3d9e", "#ffd28a", "#8affea", "#e0e0ff",
];

/** Armagetron's team names and colours (TEAM_NAME_n, TEAM_RED_n... out of 15)
 * for teams 1-8; black (7,7,7) is lifted to a grey that shows on the floor. */
const TEAMS: { name: string; rgb: [number, number, number] }[] = [
  { name: "Blue", rgb: [4, 8, 15] }, { name: "Gold", rgb: [15, 15, 4] }, { name: "Red", rgb: [15, 4, 4] },
  { name: "Green", rgb: [4, 15, 4] }, { name: "Violet", rgb: [15, 4, 15] }, { name: "Ugly", rgb: [4, 15, 15] },
  { name: "White", rgb: [15, 15, 15] }, { name: "Black", rgb: [9, 9, 10] },
];

/** teamName returns team t's name ("Blue"), as Armagetron names teams 1-8. */
export function teamName(t: number): string {
  return t >= 0 && t < TEAMS.length ? TEAMS[t].name : `Team ${t + 1}`;
}

/** teamCSS returns team t's own colour as a CSS string. */
export function teamCSS(t: number): string {
  if (t >= 0 && t < TEAMS.length) {
    const [r, g, b] = TEAMS[t].rgb;
    return `rgb(${Math.round((r * 255) / 15)}, ${Math.round((g * 255) / 15)}, ${Math.round((b * 255) / 15)})`;
  }
  return `hsl(${Math.round((t * 137.508) % 360)}, 100%, 60%)`;
}

function paletteCSS(id: number): string {
  if (id < PALETTE.length) return PALETTE[id];
  // Beyond the palette: golden-angle hues, which never repeat closely.
  const hue = Math.round((id * 137.508) % 360);
  return `hsl(${hue}, 100%, 62%)`;
}

/** The colours in use, by player id; the team mode they were dealt for. */
const current: string[] = [];
for (let i = 0; i < MAX_PLAYERS; i++) current.push(paletteCSS(i));
let dealt = "";
let version = 0;

/** colorCSS returns player id's colour as a CSS string (its team's shade in a team round). */
export function colorCSS(id: number): string {
  return current[id] ?? paletteCSS(id);
}

/** colorsVersion grows whenever applyTeams changes a colour: drawings that
 * cached colours redraw. */
export function colorsVersion(): number {
  return version;
}

/**
 * applyTeams deals the colours for frame f: in a team round a player's is its
 * team's colour, members told apart by lightness (in id order; your own
 * cycle, f.you, palest), otherwise the palette by id. Cheap when nothing
 * changed; the shared Color objects change in place, so materials built on
 * them (trails' uniforms) follow, and others watch colorsVersion.
 */
export function applyTeams(f: Frame): void {
  let key = f.teamMode ? `${f.you}` : "ffa";
  if (f.teamMode) for (const c of f.cycles) key += `,${c.present ? c.team : -1}`;
  if (key === dealt) return;
  dealt = key;
  const rank = new Array<number>(MAX_PLAYERS).fill(0);
  const seen = new Array<number>(MAX_PLAYERS).fill(0);
  for (const c of f.cycles) {
    if (!f.teamMode || !c.present || c.team === NO_TEAM || c.id === f.you) continue;
    rank[c.id] = seen[c.team % MAX_PLAYERS]++;
  }
  for (let i = 0; i < MAX_PLAYERS; i++) {
    const c = f.cycles[i];
    let css = paletteCSS(i);
    if (f.teamMode && c.present && c.team !== NO_TEAM) {
      const base = new Color(teamCSS(c.team));
      const hsl = { h: 0, s: 0, l: 0 };
      base.getHSL(hsl, SRGBColorSpace);
      // Shades alternate darker and lighter around the team colour, yours
      // nearest white: near enough to read as one family, far enough apart
      // to tell two teammates' trails at a crossing.
      const k = rank[i];
      const l = i === f.you ? hsl.l + 0.15 : hsl.l + (k % 2 === 0 ? -1 : 1) * 0.07 * Math.ceil(k / 2) - 0.04;
      const out = new Color().setHSL(hsl.h, hsl.s, Math.min(0.8, Math.max(0.3, l)), SRGBColorSpace);
      css = `#${out.getHexString()}`;
    }
    if (current[i] !== css) {
      current[i] = css;
      if (cache[i]) cache[i].set(css);
    }
  }
  version++;
}

const cache: Color[] = [];

/** color returns player id's colour for three.js (shared: do not modify; applyTeams changes it in place). */
export function color(id: number): Color {
  if (!cache[id]) cache[id] = new Color(colorCSS(id));
  return cache[id];
}

export function allColors(): Color[] {
  const out: Color[] = [];
  for (let i = 0; i < MAX_PLAYERS; i++) out.push(color(i));
  return out;
}
