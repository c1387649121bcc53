// Player colours: distinct hues, bright enough to glow on a dark floor.
import { Color } from "three";
import { MAX_PLAYERS } from "../core/layout";

const PALETTE = [
  "#00e5ff", "#ff9a1f", "#ff3df2", "#7dff3d", "#ffe93d", "#ff3d55", "#3d7dff", "#3dffb4",
  "#c93dff", "#ff6f3d", "#b6ff3d", "#3dd0ff", "#ff3d9e", "#ffd28a", "#8affea", "#e0e0ff",
];

/** colorCSS returns player id's colour as a CSS string. */
export function colorCSS(id: number): string {
  if (id < PALETTE.length) return PALETTE[id];
  // Beyond the palette: golden-angle hues, which never repeat closely.
  const hue = Math.round((id * 137.508) % 360);
  return `hsl(${hue}, 100%, 62%)`;
}

const cache: Color[] = [];

/** color returns player id's colour for three.js (shared: do not modify). */
export function color(id: number): Color {
  if (!cache[id]) cache[id] = new Color(colorCSS(id));
  return cache[id];
}

export function allColors(): Color[] {
  const out: Color[] = [];
  for (let i = 0; i < MAX_PLAYERS; i++) out.push(color(i));
  return out;
}
