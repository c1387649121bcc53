// What the page loads once the lobby is up: the game, the replay player and
// the three.js renderer they draw with (about 140 KB compressed). main.ts
// imports this module dynamically, so the lobby is usable before it arrives
// (issue 25, first visit); it starts loading in the background at once.
export { Game } from "./game";
export { Renderer } from "./render/renderer";
export { ReplayPage } from "./replay/page";
