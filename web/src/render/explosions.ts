// Explosions: the simulation's blasts (Frame.explosions). A sphere of the
// radius the blast has cut walls to (it grows to EXPLOSION_RADIUS in 0.2 s,
// as the holes do), a flash, and a ring that runs on over the floor and fades.
import { AdditiveBlending, DoubleSide, Group, Mesh, MeshBasicMaterial, RingGeometry, Scene, SphereGeometry } from "three";
import type { Frame } from "../core/frame";
import { MAX_PLAYERS } from "../core/layout";
import { color } from "./colors";
import { colorsVersion } from "./palette";

/** How long a blast shows, seconds (the frame keeps it for EXPLOSION_LIFE). */
export const SHOW_S = 1.2;

interface Blast {
  group: Group;
  ball: Mesh<SphereGeometry, MeshBasicMaterial>;
  ring: Mesh<RingGeometry, MeshBasicMaterial>;
  flash: Mesh<SphereGeometry, MeshBasicMaterial>;
}

export class Explosions {
  private readonly blasts: Blast[] = [];
  private colors = -1;
  /** Blasts drawn in the last update (the test hook reads it). */
  shown = 0;

  constructor(scene: Scene) {
    const sphere = new SphereGeometry(1, 20, 14);
    const ring = new RingGeometry(0.85, 1, 48);
    // forceSinglePass: three.js draws a transparent double-sided mesh in two
    // passes (back faces, then front), flagging the material changed before
    // each, so that it looks its program up afresh twice a frame: for
    // additive blending without depth writes the order of the faces cannot
    // show, and one pass draws the same pixels (the same in zone.ts,
    // mapzones.ts and the lag-o-meters' fill).
    const mat = (opacity: number) => new MeshBasicMaterial({
      transparent: true, opacity, blending: AdditiveBlending, depthWrite: false, side: DoubleSide, forceSinglePass: true,
    });
    for (let i = 0; i < MAX_PLAYERS; i++) {
      const group = new Group();
      const ball = new Mesh(sphere, mat(0.3));
      const r = new Mesh(ring, mat(0.9));
      r.rotation.x = -Math.PI / 2;
      r.position.y = 0.1;
      const flash = new Mesh(sphere, mat(1));
      flash.material.color.set(0xffffff);
      group.add(ball, r, flash);
      group.visible = false;
      scene.add(group);
      this.blasts.push({ group, ball, ring: r, flash });
    }
  }

  update(f: Frame): void {
    if (this.colors !== colorsVersion()) {
      this.colors = colorsVersion();
      this.blasts.forEach((b, i) => {
        b.ball.material.color.copy(color(i));
        b.ring.material.color.copy(color(i));
      });
    }
    for (const b of this.blasts) b.group.visible = false;
    this.shown = 0;
    for (const e of f.explosions) {
      if (e.age >= SHOW_S || e.owner < 0 || e.owner >= MAX_PLAYERS) continue;
      const b = this.blasts[e.owner];
      const t = e.age / SHOW_S;
      b.group.visible = true;
      b.group.position.set(e.x, 0, -e.y);
      // The ball is what the blast cut: exactly its radius while it grows.
      b.ball.scale.setScalar(Math.max(e.radius, 0.01));
      b.ball.material.opacity = 0.35 * (1 - t);
      b.ring.scale.setScalar(Math.max(e.radius, 0.5) * (1 + t * 2.5));
      b.ring.material.opacity = 0.9 * (1 - t);
      b.flash.scale.setScalar(1 + t * 4);
      b.flash.material.opacity = Math.max(0, 1 - t * 2.5);
      this.shown++;
    }
  }
}
