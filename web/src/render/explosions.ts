// Explosions: the simulation's blasts (Frame.explosions). A sphere of the
// radius the blast has cut walls to (it grows to EXPLOSION_RADIUS in 0.2 s,
// as the holes do), a flash, and a ring that runs on over the floor and fades.
import {
  AdditiveBlending, Color, DoubleSide, InstancedMesh, Matrix4, MeshBasicMaterial, Quaternion, RingGeometry, Scene,
  SphereGeometry, Vector3,
} from "three";
import type { Frame } from "../core/frame";
import { MAX_PLAYERS } from "../core/layout";
import { color } from "./colors";

/** How long a blast shows, seconds (the frame keeps it for EXPLOSION_LIFE). */
export const SHOW_S = 1.2;

/** Every blast's parts: three instanced meshes (the balls, the rings, the
 * flashes), an instance per blast shown, so that a round's opening, when
 * many cycles die at once, costs three draw calls and not three per blast.
 * Each part fades by its instance's colour instead of its material's
 * opacity (one material serves every blast): the blending adds the
 * shader's output colour times its alpha, and the output is sRGB, so the
 * colour is faded in sRGB and given back in linear terms (fade): the
 * same pixels as the colour at that opacity. */
export class Explosions {
  private readonly ball: InstancedMesh;
  private readonly ring: InstancedMesh;
  private readonly flash: InstancedMesh;
  /** Blasts drawn in the last update (the test hook reads it). */
  shown = 0;
  private readonly m = new Matrix4();
  private readonly at = new Vector3();
  private readonly size = new Vector3();
  private readonly c = new Color();
  private static readonly still = new Quaternion();
  private static readonly white = new Color(0xffffff);

  constructor(scene: Scene) {
    // forceSinglePass: three.js draws a transparent double-sided mesh in two
    // passes (back faces, then front), flagging the material changed before
    // each, so that it looks its program up afresh twice a frame: for
    // additive blending without depth writes the order of the faces cannot
    // show, and one pass draws the same pixels (the same in zone.ts,
    // mapzones.ts and the lag-o-meters' fill).
    const mat = () => new MeshBasicMaterial({
      transparent: true, opacity: 1, blending: AdditiveBlending, depthWrite: false, side: DoubleSide, forceSinglePass: true,
    });
    const sphere = new SphereGeometry(1, 20, 14);
    // The ring lies on the floor, a little above it.
    const ring = new RingGeometry(0.85, 1, 48).rotateX(-Math.PI / 2);
    const part = (g: SphereGeometry | RingGeometry) => {
      const im = new InstancedMesh(g, mat(), MAX_PLAYERS);
      im.instanceMatrix.setUsage(35048); // DYNAMIC_DRAW
      // Made now, so that the program is made with instance colours (precompile).
      im.setColorAt(0, Explosions.white);
      // The instances are anywhere in the arena: culling by one's bounds would hide the others.
      im.frustumCulled = false;
      im.count = 0;
      im.visible = false;
      scene.add(im);
      return im;
    };
    this.ball = part(sphere);
    this.ring = part(ring);
    this.flash = part(sphere);
  }

  update(f: Frame): void {
    let n = 0;
    for (const e of f.explosions) {
      if (e.age >= SHOW_S || e.owner < 0 || e.owner >= MAX_PLAYERS) continue;
      const t = e.age / SHOW_S;
      const col = color(e.owner);
      // The ball is what the blast cut: exactly its radius while it grows.
      this.put(this.ball, n, e.x, 0, e.y, Math.max(e.radius, 0.01), fade(this.c, col, 0.35 * (1 - t)));
      this.put(this.ring, n, e.x, 0.1, e.y, Math.max(e.radius, 0.5) * (1 + t * 2.5), fade(this.c, col, 0.9 * (1 - t)));
      this.put(this.flash, n, e.x, 0, e.y, 1 + t * 4, fade(this.c, Explosions.white, Math.max(0, 1 - t * 2.5)));
      n++;
    }
    for (const im of [this.ball, this.ring, this.flash]) {
      im.count = n;
      im.visible = n > 0;
      if (n === 0) continue;
      im.instanceMatrix.clearUpdateRanges();
      im.instanceMatrix.addUpdateRange(0, n * 16);
      im.instanceMatrix.needsUpdate = true;
      const ic = im.instanceColor;
      if (ic) {
        ic.clearUpdateRanges();
        ic.addUpdateRange(0, n * 3);
        ic.needsUpdate = true;
      }
    }
    this.shown = n;
  }

  /** put sets instance k of im: at simulation point (x, y), height h, scaled by s, in colour col. */
  private put(im: InstancedMesh, k: number, x: number, h: number, y: number, s: number, col: Color): void {
    im.setMatrixAt(k, this.m.compose(this.at.set(x, h, -y), Explosions.still, this.size.set(s, s, s)));
    im.setColorAt(k, col);
  }
}

/** fade sets out to colour col (linear) at opacity a as drawn with additive
 * blending into an sRGB output: col's sRGB components times a, in linear. */
export function fade(out: Color, col: Color, a: number): Color {
  return out.copy(col).convertLinearToSRGB().multiplyScalar(a).convertSRGBToLinear();
}
