// Cycles: one small model per player slot, made once, moved every frame; and
// the burst when a cycle dies.
import {
  AdditiveBlending, BoxGeometry, CylinderGeometry, DoubleSide, Group, Mesh, MeshBasicMaterial,
  MeshLambertMaterial, RingGeometry, Scene, SphereGeometry, TorusGeometry,
} from "three";
import type { CycleView } from "../core/frame";
import { MAX_PLAYERS } from "../core/layout";
import { color } from "./colors";

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

const EXPLOSION_S = 1.2;

interface CycleObj {
  group: Group;
  yaw: number;
  wasAlive: boolean;
  burst: Group;
  burstAge: number; // seconds since death, or Infinity
}

export class Cycles {
  private readonly objs: CycleObj[] = [];

  constructor(scene: Scene) {
    const body = new BoxGeometry(2.0, 0.8, 0.6);
    const canopy = new BoxGeometry(0.9, 0.35, 0.5);
    const wheel = new TorusGeometry(0.42, 0.11, 8, 20);
    const stripe = new BoxGeometry(2.05, 0.08, 0.64);
    const halo = new CylinderGeometry(1.6, 1.6, 0.02, 24, 1, true);
    const ring = new RingGeometry(0.8, 1.2, 40);
    const flash = new SphereGeometry(1, 16, 12);
    const dark = new MeshLambertMaterial({ color: 0x0b0e16 });
    for (let i = 0; i < MAX_PLAYERS; i++) {
      const c = color(i);
      const glow = new MeshBasicMaterial({ color: c });
      const g = new Group();
      const b = new Mesh(body, dark);
      b.position.y = 0.75;
      const cp = new Mesh(canopy, dark);
      cp.position.set(-0.2, 1.25, 0);
      const s = new Mesh(stripe, glow);
      s.position.y = 0.95;
      const w1 = new Mesh(wheel, glow);
      w1.position.set(0.9, 0.45, 0);
      const w2 = new Mesh(wheel, glow);
      w2.position.set(-0.9, 0.45, 0);
      const h = new Mesh(halo, new MeshBasicMaterial({
        color: c, transparent: true, opacity: 0.25, blending: AdditiveBlending, depthWrite: false, side: DoubleSide,
      }));
      h.scale.set(1, 1, 0.6);
      g.add(b, cp, s, w1, w2, h);
      g.visible = false;
      const burst = new Group();
      const r = new Mesh(ring, new MeshBasicMaterial({
        color: c, transparent: true, blending: AdditiveBlending, depthWrite: false, side: DoubleSide,
      }));
      r.rotation.x = -Math.PI / 2;
      r.position.y = 0.1;
      const f = new Mesh(flash, new MeshBasicMaterial({
        color: 0xffffff, transparent: true, blending: AdditiveBlending, depthWrite: false,
      }));
      burst.add(r, f);
      burst.visible = false;
      scene.add(g, burst);
      this.objs.push({ group: g, yaw: 0, wasAlive: false, burst, burstAge: Infinity });
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
    for (let i = 0; i < MAX_PLAYERS; i++) {
      const c = cycles[i];
      const o = this.objs[i];
      const alive = c.alive && c.inRound;
      if (alive) {
        if (!o.wasAlive) o.yaw = yawOf(c.dir); // spawned: no swing
        o.yaw = approachAngle(o.yaw, yawOf(c.dir), k);
        o.group.position.set(c.x, 0, -c.y);
        o.group.rotation.y = o.yaw;
      } else if (o.wasAlive && c.inRound) {
        o.burstAge = 0;
        o.burst.position.set(c.x, 0, -c.y);
      }
      o.group.visible = alive;
      o.wasAlive = alive;
      this.animateBurst(o, dt);
    }
  }

  private animateBurst(o: CycleObj, dt: number): void {
    if (o.burstAge >= EXPLOSION_S) {
      o.burst.visible = false;
      return;
    }
    o.burstAge += dt;
    const t = Math.min(o.burstAge / EXPLOSION_S, 1);
    o.burst.visible = t < 1;
    const [ring, flash] = o.burst.children as Mesh[];
    ring.scale.setScalar(1 + t * 9);
    (ring.material as MeshBasicMaterial).opacity = (1 - t) * 0.9;
    flash.scale.setScalar(1 + t * 4);
    (flash.material as MeshBasicMaterial).opacity = Math.max(0, 1 - t * 2.5);
  }
}
