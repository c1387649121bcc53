// The player colours as three.js colour objects, for the renderer: the same
// colours as palette.ts (CSS strings for the page), kept in step with its
// dealing (applyTeams) through colorsVersion. Shared objects: materials built
// on them (the trails' uniforms) follow a recolouring in place.
import { Color } from "three";
import { MAX_PLAYERS } from "../core/layout";
import { colorCSS, colorsVersion } from "./palette";

const cache: Color[] = [];
let dealt = -1;

/** syncColors brings the colour objects in step with the palette's dealing (the renderer calls it after applyTeams). */
export function syncColors(): void {
  if (dealt !== colorsVersion()) {
    dealt = colorsVersion();
    cache.forEach((c, i) => c.set(colorCSS(i)));
  }
}

/** color returns player id's colour for three.js (shared: do not modify; it changes in place when the colours are dealt again). */
export function color(id: number): Color {
  syncColors();
  if (!cache[id]) cache[id] = new Color(colorCSS(id));
  return cache[id];
}

/** allColors returns every player's colour (color), by id. */
export function allColors(): Color[] {
  const out: Color[] = [];
  for (let i = 0; i < MAX_PLAYERS; i++) out.push(color(i));
  return out;
}
