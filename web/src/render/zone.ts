// The win zone (Armagetron's gWinZoneHack): once the simulation opens it, a
// glowing green cylinder of its radius on the floor; a cycle that rides into
// it wins the round for its team.
import { AdditiveBlending, CircleGeometry, CylinderGeometry, DoubleSide, Group, Mesh, MeshBasicMaterial, Scene } from "three";
import type { Frame } from "../core/frame";

/** The zone's colour (CSS), on the minimap too. */
export const ZONE_CSS = "#3dff6a";

export class WinZone {
  private readonly group = new Group();
  private spin = 0;

  constructor(scene: Scene) {
    const mat = (opacity: number) => new MeshBasicMaterial({
      color: ZONE_CSS, transparent: true, opacity, blending: AdditiveBlending, depthWrite: false, side: DoubleSide,
      forceSinglePass: true, // see explosions.ts
    });
    // A unit cylinder, scaled to the radius; its wall dashed by few segments
    // so that the spin shows.
    const wall = new Mesh(new CylinderGeometry(1, 1, 4, 24, 1, true), mat(0.35));
    wall.position.y = 2;
    const floor = new Mesh(new CircleGeometry(1, 48), mat(0.12));
    floor.rotation.x = -Math.PI / 2;
    floor.position.y = 0.04;
    this.group.add(wall, floor);
    this.group.visible = false;
    scene.add(this.group);
  }

  /** visible reports whether the zone was drawn in the last update. */
  get visible(): boolean {
    return this.group.visible;
  }

  update(f: Frame, dt: number): void {
    this.group.visible = f.zoneOpen && f.zoneRadius > 0;
    if (!this.group.visible) return;
    this.spin += dt * 0.8;
    this.group.position.set(f.zoneX, 0, -f.zoneY);
    this.group.scale.set(f.zoneRadius, 1, f.zoneRadius);
    this.group.rotation.y = this.spin;
  }
}
