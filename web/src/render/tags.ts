// Name tags: a name over every rival cycle, as Armagetron puts one, drawn
// in the page over the canvas. A tag fades with distance, and one in the
// middle of the screen below the horizon, where your way ahead is, is drawn
// faint: it never hides a wall you are riding at.
import { type PerspectiveCamera, Vector3 } from "three";
import type { Frame } from "../core/frame";
import { MAX_PLAYERS } from "../core/layout";
import { colorCSS } from "./palette";

/** Full strength up to NEAR metres, gone at FAR. */
const NEAR = 30;
const FAR = 220;
/** Height of a tag over its cycle, metres. */
const OVER = 2.8;

export class NameTags {
  private readonly tags: HTMLElement[] = [];
  private readonly text: string[] = [];
  private readonly color: string[] = [];
  private readonly opacity: string[] = [];
  private readonly place: string[] = [];
  private readonly p = new Vector3();
  /** How many tags the last frame showed (window.webtron.scene()). */
  shown = 0;
  /** The root's size, read when it changes (a ResizeObserver), not every frame: a read forced a layout. */
  private w = 0;
  private h = 0;

  constructor(root: HTMLElement) {
    new ResizeObserver(() => {
      this.w = root.clientWidth;
      this.h = root.clientHeight;
    }).observe(root);
    root.replaceChildren();
    for (let i = 0; i < MAX_PLAYERS; i++) {
      const t = document.createElement("div");
      t.className = "tag";
      t.hidden = true;
      root.append(t);
      this.tags.push(t);
      this.text.push("");
      this.color.push("");
      this.opacity.push("");
      this.place.push("");
    }
  }

  /** update places the tags for frame f seen by camera; on false they all hide. */
  update(f: Frame, camera: PerspectiveCamera, name: (id: number) => string, on: boolean): void {
    const w = this.w, h = this.h;
    this.shown = 0;
    for (let i = 0; i < MAX_PLAYERS; i++) {
      const c = f.cycles[i];
      const t = this.tags[i];
      let show = on && c.alive && c.inRound && i !== f.you;
      let alpha = 0;
      if (show) {
        this.p.set(c.x, OVER, -c.y);
        const dist = this.p.distanceTo(camera.position);
        this.p.project(camera);
        alpha = Math.min(1, Math.max(0, 1 - (dist - NEAR) / (FAR - NEAR)));
        show = this.p.z < 1 && Math.abs(this.p.x) < 1.05 && Math.abs(this.p.y) < 1.05 && alpha > 0.05;
        // Your way ahead: the middle of the screen, below the horizon.
        if (Math.abs(this.p.x) < 0.18 && this.p.y < 0.3 && this.p.y > -0.6) alpha *= 0.3;
      }
      if (t.hidden === show) t.hidden = !show;
      if (!show) continue;
      this.shown++;
      const label = name(i), col = colorCSS(i);
      if (this.text[i] !== label) {
        this.text[i] = label;
        t.textContent = label;
      }
      if (this.color[i] !== col) {
        this.color[i] = col;
        t.style.color = col;
      }
      const x = ((this.p.x + 1) / 2) * w, y = ((1 - this.p.y) / 2) * h;
      // Each write to a style parses its value: only the changed ones.
      const at = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px) translate(-50%, -100%)`;
      if (this.place[i] !== at) {
        this.place[i] = at;
        t.style.transform = at;
      }
      const o = alpha.toFixed(2);
      if (this.opacity[i] !== o) {
        this.opacity[i] = o;
        t.style.opacity = o;
      }
    }
  }
}
