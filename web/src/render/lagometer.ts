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
import { AdditiveBlending, BufferAttribute, BufferGeometry, DoubleSide, LineBasicMaterial, LineSegments, Mesh, MeshBasicMaterial, Scene } from "three";
import type { CycleView } from "../core/frame";
import { MAX_PLAYERS } from "../core/layout";
import { color } from "./colors";

const EDGES = 5;
const Y = 0.15;

/** lagOutline returns the outline's corners in the cycle's frame (forward, left), metres, relative to the cycle. */
export function lagOutline(speed: number, lagS: number, turnDelayS: number): [number, number][] {
  const d = speed * lagS;
  const pts: [number, number][] = [[d, 0], [0, d]];
  const back = d - speed * turnDelayS;
  if (back > 0) {
    const side = speed * turnDelayS;
    pts.push([-back, side], [-back, -side]);
  }
  pts.push([0, -d]);
  // Shift so that the tip is the cycle itself.
  return pts.map(([f, l]) => [f - d, l]);
}

export class LagMeters {
  private readonly pos = new Float32Array(MAX_PLAYERS * EDGES * 2 * 3);
  private readonly col = new Float32Array(MAX_PLAYERS * EDGES * 2 * 3);
  private readonly geom = new BufferGeometry();
  private readonly lines: LineSegments;
  /** The fill: a fan of triangles from each outline's centre, EDGES per outline. */
  private readonly fillPos = new Float32Array(MAX_PLAYERS * EDGES * 3 * 3);
  private readonly fillCol = new Float32Array(MAX_PLAYERS * EDGES * 3 * 3);
  private readonly fillGeom = new BufferGeometry();
  /** How many outlines the last frame drew (window.webtron.scene()). */
  shown = 0;
  /** Seconds of predicted lag per player, refreshed from Info a few times a second. */
  readonly lag = new Float32Array(MAX_PLAYERS);
  visible = true;

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
    const fill = new Mesh(this.fillGeom, new MeshBasicMaterial({
      vertexColors: true, transparent: true, opacity: 0.22, depthWrite: false, side: DoubleSide, blending: AdditiveBlending,
    }));
    fill.frustumCulled = false;
    scene.add(fill);
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
      const pts = lagOutline(c.speed, lag, turnDelayS);
      const a = (c.dir & 3) * (Math.PI / 2);
      const fx = Math.round(Math.cos(a)), fy = Math.round(Math.sin(a));
      const col = color(i);
      // The fill: the outline is convex, so a fan from its centre covers it.
      let cf = 0, cl = 0;
      for (const [f, l] of pts) {
        cf += f / pts.length;
        cl += l / pts.length;
      }
      const put = (f: number, l: number) => {
        const o = fv * 3;
        this.fillPos[o] = c.x + f * fx - l * fy;
        this.fillPos[o + 1] = Y * 0.5;
        this.fillPos[o + 2] = -(c.y + f * fy + l * fx);
        this.fillCol[o] = col.r;
        this.fillCol[o + 1] = col.g;
        this.fillCol[o + 2] = col.b;
        fv++;
      };
      for (let e = 0; e < pts.length; e++) {
        put(cf, cl);
        put(pts[e][0], pts[e][1]);
        put(pts[(e + 1) % pts.length][0], pts[(e + 1) % pts.length][1]);
      }
      for (let e = 0; e < pts.length; e++) {
        for (const [f, l] of [pts[e], pts[(e + 1) % pts.length]]) {
          // sim (x, y) = pos + f*forward + l*left; left = (-fy, fx); three z = -y
          const x = c.x + f * fx - l * fy;
          const y = c.y + f * fy + l * fx;
          const o = v * 3;
          this.pos[o] = x;
          this.pos[o + 1] = Y;
          this.pos[o + 2] = -y;
          this.col[o] = col.r;
          this.col[o + 1] = col.g;
          this.col[o + 2] = col.b;
          v++;
        }
      }
    }
    this.geom.setDrawRange(0, v);
    (this.geom.getAttribute("position") as BufferAttribute).needsUpdate = v > 0;
    (this.geom.getAttribute("color") as BufferAttribute).needsUpdate = v > 0;
    this.fillGeom.setDrawRange(0, fv);
    (this.fillGeom.getAttribute("position") as BufferAttribute).needsUpdate = fv > 0;
    (this.fillGeom.getAttribute("color") as BufferAttribute).needsUpdate = fv > 0;
  }
}
