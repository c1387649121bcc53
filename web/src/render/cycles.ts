// Cycles: one small model per player slot, an instance of one model made
// once, moved every frame (a dying cycle's blast is drawn by explosions.ts,
// from the simulation's).
import {
  AdditiveBlending, BoxGeometry, type BufferGeometry, CircleGeometry, CylinderGeometry, InstancedMesh,
  Matrix4, MeshBasicMaterial, MeshLambertMaterial, Quaternion, Scene, TorusGeometry, Vector3,
} from "three";
import { mergeGeometries } from "three/addons/utils/BufferGeometryUtils.js";
import type { CycleView } from "../core/frame";
import { MAX_PLAYERS } from "../core/layout";
import { color } from "./colors";
import { colorsVersion } from "./palette";

/** yawOf returns the three.js rotation about y that points +x along direction dir of axes (4: east, north, west, south). */
export function yawOf(dir: number, axes = 4): number {
  return (dir % axes) * ((2 * Math.PI) / axes);
}

/** approachAngle moves angle a toward b by the shortest way, by fraction k. */
export function approachAngle(a: number, b: number, k: number): number {
  let d = b - a;
  d = Math.atan2(Math.sin(d), Math.cos(d));
  return a + d * k;
}

/** Every cycle's model: three instanced meshes (the dark hull, the glowing
 * spine and wheels in the player's colour, the disc of light under it), one
 * instance per player slot, so that 32 cycles are three draw calls, not a
 * mesh per part and cycle (nine each: 288 calls, the main thread's largest
 * cost with 32 cycles). A slot not drawn has a matrix of scale 0. */
export class Cycles {
  private readonly yaws = new Float64Array(MAX_PLAYERS);
  private readonly wasAlive: boolean[] = new Array<boolean>(MAX_PLAYERS).fill(false);
  private readonly dark: InstancedMesh;
  private readonly glow: InstancedMesh;
  private readonly disc: InstancedMesh;
  private colors = -1;
  private readonly m = new Matrix4();
  private readonly q = new Quaternion();
  private readonly at = new Vector3();
  private readonly one = new Vector3(1, 1, 1);
  private static readonly up = new Vector3(0, 1, 0);
  private static readonly none = new Matrix4().makeScale(0, 0, 0);

  constructor(scene: Scene) {
    // A low-poly lightcycle, about 3 m long: dark hull, two glowing wheels
    // (tori in the xy plane roll along +x, the model's forward), a glowing
    // spine and a faint disc of light on the floor.
    const part = (g: BufferGeometry, x: number, y: number, rx = 0): BufferGeometry => {
      g.deleteAttribute("uv");
      return g.rotateX(rx).translate(x, y, 0);
    };
    const dark = mergeGeometries([
      part(new BoxGeometry(2.6, 0.55, 0.5), 0, 0.75),
      part(new BoxGeometry(0.9, 0.35, 0.46), 1.35, 0.62),
      part(new BoxGeometry(1.0, 0.3, 0.42), -0.35, 1.1),
      part(new CylinderGeometry(0.5, 0.5, 0.3, 16), 1.05, 0.62, Math.PI / 2),
      part(new CylinderGeometry(0.5, 0.5, 0.3, 16), -1.05, 0.62, Math.PI / 2),
    ]);
    const glow = mergeGeometries([
      part(new BoxGeometry(2.7, 0.07, 0.54), 0, 0.95),
      part(new TorusGeometry(0.62, 0.13, 8, 24), 1.05, 0.62),
      part(new TorusGeometry(0.62, 0.13, 8, 24), -1.05, 0.62),
    ]);
    const disc = new CircleGeometry(2.4, 32).rotateX(-Math.PI / 2).translate(0, 0.03, 0);
    this.dark = new InstancedMesh(dark, new MeshLambertMaterial({ color: 0x10141f }), MAX_PLAYERS);
    this.glow = new InstancedMesh(glow, new MeshBasicMaterial({ color: 0xffffff }), MAX_PLAYERS);
    this.disc = new InstancedMesh(disc, new MeshBasicMaterial({
      color: 0xffffff, transparent: true, opacity: 0.22, blending: AdditiveBlending, depthWrite: false,
    }), MAX_PLAYERS);
    // The three parts of a cycle stand where the cycle does: one matrix per
    // slot, shared, uploaded once a frame (not three times); the glow and
    // the disc share the colours too.
    this.dark.instanceMatrix.setUsage(35048); // DYNAMIC_DRAW
    for (let i = 0; i < MAX_PLAYERS; i++) this.dark.setMatrixAt(i, Cycles.none);
    this.glow.instanceMatrix = this.disc.instanceMatrix = this.dark.instanceMatrix;
    this.tint();
    for (const im of [this.dark, this.glow, this.disc]) {
      // The instances span the arena: culling by the model's own bounds would hide them.
      im.frustumCulled = false;
      scene.add(im);
    }
  }

  /** tint colours each slot's glowing parts and disc in its player's colour. */
  private tint(): void {
    this.colors = colorsVersion();
    for (let i = 0; i < MAX_PLAYERS; i++) this.glow.setColorAt(i, color(i));
    this.disc.instanceColor = this.glow.instanceColor;
    if (this.glow.instanceColor) this.glow.instanceColor.needsUpdate = true;
  }

  /** yaw returns the smoothed heading drawn for cycle i (for the chase camera). */
  yaw(i: number): number {
    return this.yaws[i];
  }

  update(cycles: CycleView[], dt: number): void {
    // A turn is instant in the simulation; swing the model over ~60 ms so
    // the eye can follow it.
    const k = 1 - Math.exp(-dt / 0.03);
    if (this.colors !== colorsVersion()) this.tint();
    for (let i = 0; i < MAX_PLAYERS; i++) {
      const c = cycles[i];
      const alive = c.alive && c.inRound;
      let m = Cycles.none;
      if (alive) {
        if (!this.wasAlive[i]) this.yaws[i] = yawOf(c.dir, c.axes); // spawned: no swing
        this.yaws[i] = approachAngle(this.yaws[i], yawOf(c.dir, c.axes), k);
        this.q.setFromAxisAngle(Cycles.up, this.yaws[i]);
        m = this.m.compose(this.at.set(c.x, 0, -c.y), this.q, this.one);
      }
      this.dark.setMatrixAt(i, m); // the glow's and the disc's too (shared)
      this.wasAlive[i] = alive;
    }
    this.dark.instanceMatrix.needsUpdate = true;
  }
}
