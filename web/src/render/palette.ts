// Player colours: distinct hues, bright enough to glow on a dark floor. In a
// round played in teams every player takes a shade of its team's colour
// (Armagetron's team colours, docs/physics.md section 4), so a team reads as
// one colour family; your own cycle is the palest shade of yours.
//
// CSS strings only, no three.js: the lobby and the HUD use them, and the
// lobby must not wait for the 3D engine (issue 25, first visit). The
// renderer's colour objects follow them (colors.ts).
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
 * changed; whoever caches colours watches colorsVersion (colors.ts keeps the
 * renderer's Color objects in step).
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
      const hsl = toHSL(teamRGB(c.team));
      // Shades alternate darker and lighter around the team colour, yours
      // nearest white: near enough to read as one family, far enough apart
      // to tell two teammates' trails at a crossing.
      const k = rank[i];
      const l = i === f.you ? hsl[2] + 0.15 : hsl[2] + (k % 2 === 0 ? -1 : 1) * 0.07 * Math.ceil(k / 2) - 0.04;
      css = hex(fromHSL(hsl[0], hsl[1], Math.min(0.8, Math.max(0.3, l))));
    }
    current[i] = css;
  }
  version++;
}

/** teamRGB is team t's colour, components 0..1 (sRGB). */
function teamRGB(t: number): [number, number, number] {
  if (t >= 0 && t < TEAMS.length) {
    const [r, g, b] = TEAMS[t].rgb;
    return [Math.round((r * 255) / 15) / 255, Math.round((g * 255) / 15) / 255, Math.round((b * 255) / 15) / 255];
  }
  return fromHSL(((t * 137.508) % 360) / 360, 1, 0.6);
}

/** toHSL converts sRGB components (0..1) to hue, saturation, lightness (0..1). */
function toHSL([r, g, b]: [number, number, number]): [number, number, number] {
  const max = Math.max(r, g, b), min = Math.min(r, g, b);
  const l = (max + min) / 2;
  if (max === min) return [0, 0, l];
  const d = max - min;
  const s = l <= 0.5 ? d / (max + min) : d / (2 - max - min);
  let h = max === r ? (g - b) / d + (g < b ? 6 : 0) : max === g ? (b - r) / d + 2 : (r - g) / d + 4;
  h /= 6;
  return [h, s, l];
}

/** fromHSL converts hue, saturation, lightness (0..1) to sRGB components (0..1). */
function fromHSL(h: number, s: number, l: number): [number, number, number] {
  if (s === 0) return [l, l, l];
  const q = l <= 0.5 ? l * (1 + s) : l + s - l * s;
  const p = 2 * l - q;
  const ch = (t: number) => {
    t = ((t % 1) + 1) % 1;
    if (t < 1 / 6) return p + (q - p) * 6 * t;
    if (t < 1 / 2) return q;
    if (t < 2 / 3) return p + (q - p) * 6 * (2 / 3 - t);
    return p;
  };
  return [ch(h + 1 / 3), ch(h), ch(h - 1 / 3)];
}

function hex(rgb: [number, number, number]): string {
  return `#${rgb.map((v) => Math.round(Math.min(1, Math.max(0, v)) * 255).toString(16).padStart(2, "0")).join("")}`;
}
