// Lag-o-meters (physics.md): around each remote cycle, an outline of where it
// could really be by now. Its last known state is U seconds old (U = the
// predicted perceived lag, netcode.md section 3); the core extrapolated it
// straight ahead, so the drawn cycle sits at the tip, d = speed x U ahead of
// the last known point. From that point the cycle could have turned once at
// any moment (the two diagonals to the shoulders at d to each side) and, once
// a turn delay T had passed, turned again, which reaches back to
// -(d - speed x T): the side lobes. Your own cycle never shows one.
//
// Drawn as Armagetron draws it, large and plain: the outline, and the area
// inside it filled faintly in the rival's colour, so it reads at chase
// distance and not only up close.
import { AdditiveBlending, BufferAttribute, BufferGeometry, type Color, DoubleSide, LineBasicMaterial, LineSegments, Mesh, MeshBasicMaterial, Scene } from "three";
import type { CycleView } from "../core/frame";
import { MAX_PLAYERS } from "../core/layout";
import { color } from "./colors";
import { yawOf } from "./cycles";

const EDGES = 5;
const Y = 0.15;

/** lagOutline writes the outline's corners in the cycle's frame (forward,
 * left), metres, relative to the cycle, into out as f0, l0, f1, l1, ... and
 * returns how many corners (3 or 5; out holds 10 numbers): every frame draws
 * one per rival, so it makes no garbage. */
export function lagOutline(speed: number, lagS: number, turnDelayS: number, out: Float64Array): number {
  const d = speed * lagS;
  const back = d - speed * turnDelayS;
  const side = speed * turnDelayS;
  // (forward, left) before the shift below: the tip, the two shoulders, and
  // between them the side lobes when a second turn reaches back that far.
  out[0] = d; out[1] = 0;
  out[2] = 0; out[3] = d;
  let n = 2;
  if (back > 0) {
    out[4] = -back; out[5] = side;
    out[6] = -back; out[7] = -side;
    n = 4;
  }
  out[2 * n] = 0; out[2 * n + 1] = -d;
  n++;
  // Shift so that the tip is the cycle itself.
  for (let k = 0; k < n; k++) out[2 * k] -= d;
  return n;
}

export class LagMeters {
  private readonly pos = new Float32Array(MAX_PLAYERS * EDGES * 2 * 3);
  private readonly col = new Float32Array(MAX_PLAYERS * EDGES * 2 * 3);
  private readonly geom = new BufferGeometry();
  private readonly lines: LineSegments;
  private readonly fill: Mesh;
  /** The fill: a fan of triangles from each outline's centre, EDGES per outline. */
  private readonly fillPos = new Float32Array(MAX_PLAYERS * EDGES * 3 * 3);
  private readonly fillCol = new Float32Array(MAX_PLAYERS * EDGES * 3 * 3);
  private readonly fillGeom = new BufferGeometry();
  /** How many outlines the last frame drew (window.webtron.scene()). */
  shown = 0;
  /** Seconds of predicted lag per player, refreshed from Info a few times a second. */
  readonly lag = new Float32Array(MAX_PLAYERS);
  visible = true;
  /** Scratch for lagOutline's corners. */
  private readonly pts = new Float64Array(10);

  constructor(scene: Scene) {
    this.geom.setAttribute("position", new BufferAttribute(this.pos, 3));
    this.geom.setAttribute("color", new BufferAttribute(this.col, 3));
    this.lines = new LineSegments(this.geom, new LineBasicMaterial({
      vertexColors: true, transparent: true, opacity: 1, depthWrite: false,
    }));
    this.lines.frustumCulled = false;
    scene.add(this.lines);
    this.fillGeom.setAttribute("position", new BufferAttribute(this.fillPos, 3));
    this.fillGeom.setAttribute("color", new BufferAttribute(this.fillCol, 3));
    const fill = (this.fill = new Mesh(this.fillGeom, new MeshBasicMaterial({
      vertexColors: true, transparent: true, opacity: 0.22, depthWrite: false, side: DoubleSide, blending: AdditiveBlending,
      forceSinglePass: true, // see explosions.ts
    })));
    fill.frustumCulled = false;
    scene.add(fill);
  }

  /** vertex writes vertex k at simulation point (x, y), height h (three's z = -y), in colour col, and returns k + 1. */
  private vertex(pos: Float32Array, col: Float32Array, k: number, x: number, h: number, y: number, c: Color): number {
    const o = k * 3;
    pos[o] = x;
    pos[o + 1] = h;
    pos[o + 2] = -y;
    col[o] = c.r;
    col[o + 1] = c.g;
    col[o + 2] = c.b;
    return k + 1;
  }

  update(cycles: CycleView[], you: number, turnDelayS: number): void {
    let v = 0;
    let fv = 0;
    this.shown = 0;
    for (let i = 0; i < MAX_PLAYERS && this.visible; i++) {
      const c = cycles[i];
      const lag = this.lag[i];
      if (i === you || !c.alive || lag <= 0 || c.speed <= 0) continue;
      this.shown++;
      const n = lagOutline(c.speed, lag, turnDelayS, this.pts);
      const pts = this.pts;
      const a = yawOf(c.dir, c.axes);
      const fx = Math.cos(a), fy = Math.sin(a);
      const col = color(i);
      // The fill: the outline is convex, so a fan from its centre covers it.
      let cf = 0, cl = 0;
      for (let e = 0; e < n; e++) {
        cf += pts[2 * e] / n;
        cl += pts[2 * e + 1] / n;
      }
      for (let e = 0; e < n; e++) {
        const g = (e + 1) % n;
        // sim (x, y) = pos + f*forward + l*left; left = (-fy, fx); three z = -y
        fv = this.vertex(this.fillPos, this.fillCol, fv, c.x + cf * fx - cl * fy, Y * 0.5, c.y + cf * fy + cl * fx, col);
        fv = this.vertex(this.fillPos, this.fillCol, fv, c.x + pts[2 * e] * fx - pts[2 * e + 1] * fy, Y * 0.5, c.y + pts[2 * e] * fy + pts[2 * e + 1] * fx, col);
        fv = this.vertex(this.fillPos, this.fillCol, fv, c.x + pts[2 * g] * fx - pts[2 * g + 1] * fy, Y * 0.5, c.y + pts[2 * g] * fy + pts[2 * g + 1] * fx, col);
        v = this.vertex(this.pos, this.col, v, c.x + pts[2 * e] * fx - pts[2 * e + 1] * fy, Y, c.y + pts[2 * e] * fy + pts[2 * e + 1] * fx, col);
        v = this.vertex(this.pos, this.col, v, c.x + pts[2 * g] * fx - pts[2 * g + 1] * fy, Y, c.y + pts[2 * g] * fy + pts[2 * g + 1] * fx, col);
      }
    }
    // Nothing to draw (no rival with a lag yet, the meters off): no draw
    // calls either; otherwise only the vertices written are uploaded.
    this.lines.visible = v > 0;
    this.fill.visible = fv > 0;
    this.geom.setDrawRange(0, v);
    upload(this.geom, v);
    this.fillGeom.setDrawRange(0, fv);
    upload(this.fillGeom, fv);
  }
}

/** upload marks the first n vertices of g's position and colour for upload (none when n is 0). */
function upload(g: BufferGeometry, n: number): void {
  if (n === 0) return;
  for (const name of ["position", "color"]) {
    const a = g.getAttribute(name) as BufferAttribute;
    a.clearUpdateRanges();
    a.addUpdateRange(0, n * 3);
    a.needsUpdate = true;
  }
}
