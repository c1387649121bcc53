// Camera modes: the chase camera behind a cycle (Armagetron's default view),
// a top-down view that follows it, and an overview of the whole arena when
// there is nobody to follow.
import { PerspectiveCamera, Vector3 } from "three";
import { approachAngle } from "./cycles";

export type CameraMode = "chase" | "top";

export interface Target {
  x: number; // metres, simulation axes
  y: number;
  yaw: number; // drawn heading
  speed: number;
  /** A wreck: pull back and up, looking at it and past it, at what it hit. */
  wreck?: boolean;
}

export class CameraRig {
  readonly camera = new PerspectiveCamera(70, 1, 0.1, 4000);
  mode: CameraMode = "chase";
  private yaw = 0;
  private readonly pos = new Vector3();
  private readonly look = new Vector3();
  private readonly wantPos = new Vector3();
  private readonly wantLook = new Vector3();
  private placed = false;

  toggle(): void {
    this.mode = this.mode === "chase" ? "top" : "chase";
  }

  resize(w: number, h: number): void {
    this.camera.aspect = w / Math.max(1, h);
    this.camera.updateProjectionMatrix();
  }

  /** update moves the camera toward its place for target (or the arena overview when null). */
  update(target: Target | null, arena: number, dt: number): void {
    let px: number, py: number, pz: number, lx: number, ly: number, lz: number;
    if (!target) {
      const m = arena / 2;
      px = m; py = arena * 0.75; pz = -m + arena * 0.55;
      lx = m; ly = 0; lz = -m;
    } else if (this.mode === "top") {
      const h = 55 + target.speed;
      px = target.x; py = h; pz = -target.y + h * 0.25;
      lx = target.x; ly = 0; lz = -target.y;
    } else {
      // Swing behind the cycle a little slower than it turns: the turn is
      // felt, yet the view never snaps.
      this.yaw = this.placed ? approachAngle(this.yaw, target.yaw, 1 - Math.exp(-dt / 0.12)) : target.yaw;
      const fx = Math.cos(this.yaw), fz = -Math.sin(this.yaw);
      if (target.wreck) {
        // Behind and above the crash, the wall it met in the middle.
        px = target.x - fx * 22; py = 16; pz = -target.y - fz * 22;
        lx = target.x + fx * 4; ly = 0; lz = -target.y + fz * 4;
      } else {
        const back = 8 + target.speed * 0.06;
        px = target.x - fx * back; py = 3.6; pz = -target.y - fz * back;
        lx = target.x + fx * 14; ly = 1.2; lz = -target.y + fz * 14;
      }
    }
    const k = this.placed ? 1 - Math.exp(-dt / (target?.wreck ? 0.35 : 0.08)) : 1;
    this.pos.lerp(this.wantPos.set(px, py, pz), k);
    this.look.lerp(this.wantLook.set(lx, ly, lz), k);
    if (target && this.mode === "chase" && !target.wreck) {
      // The chase camera is rigidly attached: lerping position would let the
      // cycle drift forward on the screen at speed.
      this.pos.set(px, py, pz);
      this.look.set(lx, ly, lz);
    }
    this.placed = true;
    this.camera.position.copy(this.pos);
    this.camera.lookAt(this.look);
  }
}
