// Minimap: the arena from above in a corner. Walls accumulate on an
// offscreen layer (only new ones are drawn); the layer is redrawn from
// scratch only when walls were taken back (rollback, new round) or an owner's
// walls vanished. Cycles and open segments are drawn on top each time.
import type { Frame } from "../core/frame";
import { MAX_PLAYERS } from "../core/layout";
import { colorCSS, colorsVersion } from "./palette";
import type { Trails } from "./trails";
import { drawZones } from "./mapzones";
import { ZONE_CSS } from "./zone";

/** The rim's colour: the square's border, or a map's walls. */
const RIM_CSS = "rgba(120, 210, 255, 0.8)";

export class Minimap {
  private readonly ctx: CanvasRenderingContext2D;
  private readonly layer: HTMLCanvasElement;
  private readonly lctx: CanvasRenderingContext2D;
  private drawn = 0; // walls on the layer
  private ownersMask = 0; // owners whose walls stand (bit per player)
  private arena = 0;
  private colors = -1; // colorsVersion the layer was drawn with
  private mapSerial = -1; // Frame.mapSerial of the map walls on the layer

  constructor(private readonly canvas: HTMLCanvasElement) {
    const ctx = canvas.getContext("2d");
    this.layer = document.createElement("canvas");
    this.layer.width = canvas.width;
    this.layer.height = canvas.height;
    const lctx = this.layer.getContext("2d");
    if (!ctx || !lctx) throw new Error("no 2D canvas");
    this.ctx = ctx;
    this.lctx = lctx;
  }

  private sx(x: number): number {
    return (x / this.arena) * this.canvas.width;
  }

  private sy(y: number): number {
    return this.canvas.height - (y / this.arena) * this.canvas.height;
  }

  /** update draws the map; call it after trails.sync for the same frame. */
  update(f: Frame, trails: Trails, follow: number): void {
    let mask = 0;
    for (let i = 0; i < MAX_PLAYERS; i++) if (trails.ownerVisible(i)) mask |= 1 << i;
    // Walls taken back, or an owner's walls vanished (or came back after a
    // rollback): start the layer over.
    if (f.arena !== this.arena || f.wallFrom < this.drawn || mask !== this.ownersMask || colorsVersion() !== this.colors ||
      f.mapSerial !== this.mapSerial) {
      this.arena = f.arena;
      this.colors = colorsVersion();
      this.mapSerial = f.mapSerial;
      this.lctx.clearRect(0, 0, this.layer.width, this.layer.height);
      this.drawn = 0;
      // An Armagetron map's walls, in the rim's colour, under the trails.
      const m = f.mapWalls;
      this.lctx.strokeStyle = RIM_CSS;
      this.lctx.lineWidth = 1.5;
      this.lctx.beginPath();
      for (let i = 0; i + 3 < m.length; i += 4) {
        this.lctx.moveTo(this.sx(m[i]), this.sy(m[i + 1]));
        this.lctx.lineTo(this.sx(m[i + 2]), this.sy(m[i + 3]));
      }
      this.lctx.stroke();
    }
    this.ownersMask = mask;
    const lc = this.lctx;
    lc.lineWidth = 1.2;
    for (let k = this.drawn; k < trails.count; k++) {
      const s = MAX_PLAYERS + k;
      const owner = trails.meta[s * 2 + 1];
      if (!(mask & (1 << owner))) continue;
      lc.strokeStyle = colorCSS(owner);
      lc.beginPath();
      lc.moveTo(this.sx(trails.seg[s * 4]), this.sy(trails.seg[s * 4 + 1]));
      lc.lineTo(this.sx(trails.seg[s * 4 + 2]), this.sy(trails.seg[s * 4 + 3]));
      lc.stroke();
    }
    this.drawn = trails.count;

    const c = this.ctx;
    c.clearRect(0, 0, this.canvas.width, this.canvas.height);
    c.fillStyle = "rgba(2, 8, 18, 0.75)";
    c.fillRect(0, 0, this.canvas.width, this.canvas.height);
    c.strokeStyle = RIM_CSS;
    c.lineWidth = 1;
    c.strokeRect(0.5, 0.5, this.canvas.width - 1, this.canvas.height - 1);
    c.drawImage(this.layer, 0, 0);
    drawZones(c, f, (x) => this.sx(x), (y) => this.sy(y), (m) => (m / this.arena) * this.canvas.width);
    if (f.zoneOpen) {
      c.strokeStyle = ZONE_CSS;
      c.fillStyle = "rgba(61, 255, 106, 0.2)";
      c.lineWidth = 1.5;
      c.beginPath();
      c.arc(this.sx(f.zoneX), this.sy(f.zoneY), Math.max(2, (f.zoneRadius / this.arena) * this.canvas.width), 0, Math.PI * 2);
      c.fill();
      c.stroke();
    }
    c.lineWidth = 1.2;
    for (const cy of f.cycles) {
      if (!cy.alive) continue;
      const col = colorCSS(cy.id);
      c.strokeStyle = col;
      c.beginPath();
      c.moveTo(this.sx(cy.turnX), this.sy(cy.turnY));
      c.lineTo(this.sx(cy.x), this.sy(cy.y));
      c.stroke();
      c.fillStyle = col;
      const r = cy.id === follow ? 3.5 : 2.2;
      c.beginPath();
      c.arc(this.sx(cy.x), this.sy(cy.y), r, 0, Math.PI * 2);
      c.fill();
      if (cy.id === follow) {
        c.strokeStyle = "#fff";
        c.beginPath();
        c.arc(this.sx(cy.x), this.sy(cy.y), r + 2.5, 0, Math.PI * 2);
        c.stroke();
      }
    }
  }
}
