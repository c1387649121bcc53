// Cycles: one small model per player slot, made once, moved every frame (a
// dying cycle's blast is drawn by explosions.ts, from the simulation's).
import {
  AdditiveBlending, BoxGeometry, type BufferGeometry, CircleGeometry, CylinderGeometry, Group,
  type Material, Mesh, MeshBasicMaterial, MeshLambertMaterial, Scene, TorusGeometry,
} from "three";
import type { CycleView } from "../core/frame";
import { MAX_PLAYERS } from "../core/layout";
import { color } from "./colors";
import { colorsVersion } from "./palette";

/** yawOf returns the three.js rotation about y that points +x along direction dir. */
export function yawOf(dir: number): number {
  return (dir & 3) * (Math.PI / 2);
}

/** approachAngle moves angle a toward b by the shortest way, by fraction k. */
export function approachAngle(a: number, b: number, k: number): number {
  let d = b - a;
  d = Math.atan2(Math.sin(d), Math.cos(d));
  return a + d * k;
}

interface CycleObj {
  group: Group;
  yaw: number;
  wasAlive: boolean;
  /** Materials in the player's colour (a team round recolours them). */
  tinted: MeshBasicMaterial[];
}

export class Cycles {
  private readonly objs: CycleObj[] = [];
  private colors = -1;

  constructor(scene: Scene) {
    // A low-poly lightcycle, about 3 m long: dark hull, two glowing wheels
    // (tori in the xy plane roll along +x, the model's forward), a glowing
    // spine and a faint disc of light on the floor.
    const hull = new BoxGeometry(2.6, 0.55, 0.5);
    const nose = new BoxGeometry(0.9, 0.35, 0.46);
    const seat = new BoxGeometry(1.0, 0.3, 0.42);
    const wheel = new TorusGeometry(0.62, 0.13, 8, 24);
    const hub = new CylinderGeometry(0.5, 0.5, 0.3, 16);
    const spine = new BoxGeometry(2.7, 0.07, 0.54);
    const disc = new CircleGeometry(2.4, 32);
    const dark = new MeshLambertMaterial({ color: 0x10141f });
    for (let i = 0; i < MAX_PLAYERS; i++) {
      const c = color(i);
      const glow = new MeshBasicMaterial({ color: c });
      const g = new Group();
      const add = (geo: BufferGeometry, mat: Material, x: number, y: number, rx = 0): void => {
        const m = new Mesh(geo, mat);
        m.position.set(x, y, 0);
        m.rotation.x = rx;
        g.add(m);
      };
      add(hull, dark, 0, 0.75);
      add(nose, dark, 1.35, 0.62);
      add(seat, dark, -0.35, 1.1);
      add(spine, glow, 0, 0.95);
      add(wheel, glow, 1.05, 0.62);
      add(wheel, glow, -1.05, 0.62);
      add(hub, dark, 1.05, 0.62, Math.PI / 2);
      add(hub, dark, -1.05, 0.62, Math.PI / 2);
      const discMat = new MeshBasicMaterial({
        color: c, transparent: true, opacity: 0.22, blending: AdditiveBlending, depthWrite: false,
      });
      const d = new Mesh(disc, discMat);
      d.rotation.x = -Math.PI / 2;
      d.position.y = 0.03;
      g.add(d);
      g.visible = false;
      scene.add(g);
      this.objs.push({ group: g, yaw: 0, wasAlive: false, tinted: [glow, discMat] });
    }
  }

  /** yaw returns the smoothed heading drawn for cycle i (for the chase camera). */
  yaw(i: number): number {
    return this.objs[i].yaw;
  }

  update(cycles: CycleView[], dt: number): void {
    // A turn is instant in the simulation; swing the model over ~60 ms so
    // the eye can follow it.
    const k = 1 - Math.exp(-dt / 0.03);
    if (this.colors !== colorsVersion()) {
      this.colors = colorsVersion();
      this.objs.forEach((o, i) => o.tinted.forEach((m) => m.color.copy(color(i))));
    }
    for (let i = 0; i < MAX_PLAYERS; i++) {
      const c = cycles[i];
      const o = this.objs[i];
      const alive = c.alive && c.inRound;
      if (alive) {
        if (!o.wasAlive) o.yaw = yawOf(c.dir); // spawned: no swing
        o.yaw = approachAngle(o.yaw, yawOf(c.dir), k);
        o.group.position.set(c.x, 0, -c.y);
        o.group.rotation.y = o.yaw;
      }
      o.group.visible = alive;
      o.wasAlive = alive;
    }
  }
}
