// An Armagetron map's zones (gWinZone.cpp): win zones green, death zones
// red, fortress zones in their team's colour, glowing brighter as they are
// conquered and grey while a conquered one collapses. The minimap draws
// them too, with each fortress's conquest as an arc (zoneCSS, drawZones).
import { AdditiveBlending, CircleGeometry, CylinderGeometry, DoubleSide, Group, Mesh, MeshBasicMaterial, Scene } from "three";
import type { Frame, MapZoneView } from "../core/frame";
import { ZoneEffect, ZoneState } from "../core/layout";
import { colorCSS, teamCSS } from "./palette";
import { ZONE_CSS } from "./zone";

/** The death zones' colour. */
const DEATH_CSS = "#ff3d3d";

/** zoneCSS returns the colour zone z is drawn in: its owner's for a fortress
 * (the player's own with one player a team, else the team's). */
export function zoneCSS(f: Frame, z: MapZoneView): string {
  switch (z.effect) {
    case ZoneEffect.Win:
      return ZONE_CSS;
    case ZoneEffect.Death:
      return DEATH_CSS;
  }
  if (z.state === ZoneState.Collapsing) return "#8a8f96";
  if (z.owner < 0) return "#808080";
  return f.teamMax <= 1 ? colorCSS(z.owner) : teamCSS(z.owner);
}

/** drawZones draws the map's zones on a 2D map whose scale maps metres to
 * pixels (sx, sy, and r for a radius): each a circle in its colour, a
 * fortress's conquest as a thicker arc from the top, clockwise, and as a
 * percentage above it. */
export function drawZones(c: CanvasRenderingContext2D, f: Frame, sx: (x: number) => number, sy: (y: number) => number, r: (m: number) => number): void {
  for (const z of f.mapZones) {
    if (z.state === ZoneState.Gone || z.radius <= 0) continue;
    const col = zoneCSS(f, z);
    const x = sx(z.x), y = sy(z.y), rad = Math.max(2, r(z.radius));
    c.strokeStyle = col;
    c.lineWidth = 1.2;
    c.beginPath();
    c.arc(x, y, rad, 0, Math.PI * 2);
    c.stroke();
    if (z.effect === ZoneEffect.Fortress && z.conquered > 0) {
      c.lineWidth = 3;
      c.strokeStyle = "#ffffff";
      c.beginPath();
      c.arc(x, y, rad, -Math.PI / 2, -Math.PI / 2 + Math.min(1, z.conquered) * Math.PI * 2);
      c.stroke();
      c.fillStyle = col;
      c.font = "bold 10px sans-serif";
      c.textAlign = "center";
      c.fillText(`${Math.min(100, Math.round(z.conquered * 100))}%`, x, Math.max(10, y - rad - 3));
    }
  }
}

/** MapZones draws the zones in 3D: a cylinder of each one's radius. */
export class MapZones {
  private readonly scene: Scene;
  private readonly groups: { group: Group; wall: MeshBasicMaterial; floor: MeshBasicMaterial }[] = [];
  private spin = 0;

  constructor(scene: Scene) {
    this.scene = scene;
  }

  update(f: Frame, dt: number): void {
    this.spin += dt * 0.5;
    const zones = f.mapZones;
    while (this.groups.length < zones.length) this.groups.push(this.make());
    for (let k = 0; k < this.groups.length; k++) {
      const g = this.groups[k];
      const z = zones[k];
      g.group.visible = !!z && z.state !== ZoneState.Gone && z.radius > 0;
      if (!z || !g.group.visible) continue;
      const col = zoneCSS(f, z);
      g.wall.color.set(col);
      g.floor.color.set(col);
      // A fortress glows brighter as it is conquered (gently: zones on one
      // spot add up, sumo's four of them).
      g.floor.opacity = 0.03 + 0.1 * Math.min(1, z.conquered);
      g.group.position.set(z.x, 0, -z.y);
      g.group.scale.set(z.radius, 1, z.radius);
      g.group.rotation.y = this.spin * (1 + 4 * z.conquered * z.conquered);
    }
  }

  /** drawn reports whether zone k was drawn in the last update. */
  drawn(k: number): boolean {
    return k < this.groups.length && this.groups[k].group.visible;
  }

  private make(): { group: Group; wall: MeshBasicMaterial; floor: MeshBasicMaterial } {
    const mat = (opacity: number) => new MeshBasicMaterial({
      color: "#ffffff", transparent: true, opacity, blending: AdditiveBlending, depthWrite: false, side: DoubleSide,
      forceSinglePass: true, // see explosions.ts
    });
    // Faint: a sumo map stacks a zone of each team on one spot, and a
    // camera inside them sees their walls added up.
    const wall = mat(0.1);
    const floor = mat(0.05);
    const group = new Group();
    const w = new Mesh(new CylinderGeometry(1, 1, 4, 24, 1, true), wall);
    w.position.y = 2;
    const fl = new Mesh(new CircleGeometry(1, 48), floor);
    fl.rotation.x = -Math.PI / 2;
    fl.position.y = 0.05;
    group.add(w, fl);
    this.scene.add(group);
    return { group, wall, floor };
  }
}
