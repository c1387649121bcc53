// Gauges: speed, rubber used and the brake reservoir of the cycle the camera
// follows, at the bottom of the screen as Armagetron shows them.
import type { Frame } from "../core/frame";
import { Phase } from "../core/layout";
import { $, setText } from "./dom";

interface Bar {
  fill: HTMLElement;
  value: HTMLElement;
  last: number;
}

export class Gauges {
  private readonly root = $("gauges");
  private readonly speed = bar("gauge-speed");
  private readonly rubber = bar("gauge-rubber");
  private readonly brake = bar("gauge-brake");

  constructor() {
    this.root.hidden = true; // until a frame shows a cycle riding
  }

  /** frame shows cycle follow's gauges while it rides (hidden otherwise). */
  frame(f: Frame, follow: number): void {
    const c = follow >= 0 ? f.cycles[follow] : null;
    const show = c !== null && c.alive && (f.phase === Phase.Play || f.phase === Phase.Prepare);
    if (this.root.hidden === show) this.root.hidden = !show;
    if (!c || !show) return;
    // Full scale at twice the cruising speed: wall acceleration rarely goes past it.
    set(this.speed, c.speed / Math.max(1, 2 * f.baseSpeed), `${Math.round(c.speed)} m/s`);
    set(this.rubber, f.rubber > 0 ? c.rubberUsed / f.rubber : 0, `${Math.round((100 * c.rubberUsed) / Math.max(f.rubber, 1e-9))} %`);
    set(this.brake, c.brake, `${Math.round(100 * c.brake)} %`);
  }
}

function bar(id: string): Bar {
  const root = $(id);
  const fill = root.querySelector<HTMLElement>(".fill");
  const value = root.querySelector<HTMLElement>(".value");
  if (!fill || !value) throw new Error(`webtron: #${id} lacks .fill or .value`);
  return { fill, value, last: -1 };
}

/** set moves a bar to fraction x (0..1), touching the DOM only when it shows a change. */
function set(b: Bar, x: number, text: string): void {
  const pct = Math.round(Math.max(0, Math.min(1, x)) * 200) / 2;
  if (pct !== b.last) {
    b.last = pct;
    b.fill.style.width = `${pct}%`;
  }
  setText(b.value, text);
}
