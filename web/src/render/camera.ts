// Cameras, after Armagetron's: the chase camera behind a cycle (its height
// and distance set by the player), a smart one higher up that looks ahead
// and to the side you are turning, first person, top-down, and for a
// spectator a free camera; an overview of the whole arena when there is
// nobody to follow. Glancing left, right or back turns the view while the
// key is held. On a screen taller than wide the view widens and looks down,
// so the walls beside you are on screen and the horizon sits in the upper
// quarter (a plain 70-degree camera shows 36 degrees across at 390x844).
import { MathUtils, PerspectiveCamera, Vector3 } from "three";
import { CAMERA_MODES, type CameraMode, type CameraSettings, DEFAULT_CAMERA, type Glance, MIN_PORTRAIT_HFOV_DEG } from "./cameraModes";
import { approachAngle } from "./cycles";

export interface Target {
  x: number; // metres, simulation axes
  y: number;
  yaw: number; // drawn heading
  speed: number;
  /** A wreck: pull back and up, looking at it and past it, at what it hit. */
  wreck?: boolean;
}

const GLANCE_YAW: Record<Glance, number> = { none: 0, left: Math.PI / 2, right: -Math.PI / 2, back: Math.PI };

export class CameraRig {
  readonly camera = new PerspectiveCamera(70, 1, 0.1, 4000);
  readonly settings: CameraSettings = { ...DEFAULT_CAMERA };
  glance: Glance = "none";
  private yaw = 0;
  private glanceYaw = 0;
  /** Smart camera: how far it leans toward the side of the last turn, -1..1. */
  private lean = 0;
  private lastTargetYaw = 0;
  /** Free camera: its angle around the arena's centre and its distance (fraction of the arena). */
  private freeYaw = -Math.PI / 2;
  private freeZoom = 0.9;
  private readonly pos = new Vector3();
  private readonly look = new Vector3();
  private readonly wantPos = new Vector3();
  private readonly wantLook = new Vector3();
  private readonly dir = new Vector3();
  private placed = false;
  private aspect = 1;

  get mode(): CameraMode {
    return this.settings.mode;
  }

  set mode(m: CameraMode) {
    this.settings.mode = m;
  }

  /** toggle moves to the next mode; free only when spectating. */
  toggle(spectating = true): void {
    const modes = spectating ? CAMERA_MODES : CAMERA_MODES.filter((m) => m !== "free");
    const i = modes.indexOf(this.settings.mode);
    this.settings.mode = modes[(i + 1) % modes.length];
  }

  /** moveFree turns (turn, radians) and zooms (zoom, fraction) the free camera. */
  moveFree(turn: number, zoom: number): void {
    this.freeYaw += turn;
    this.freeZoom = MathUtils.clamp(this.freeZoom + zoom, 0.2, 1.6);
  }

  resize(w: number, h: number): void {
    this.aspect = w / Math.max(1, h);
    this.camera.aspect = this.aspect;
    this.fit();
  }

  /** portrait reports whether the screen is taller than wide. */
  get portrait(): boolean {
    return this.aspect < 1;
  }

  /** The fields of view in degrees, horizontal and vertical, as drawn. */
  get hfovDeg(): number {
    return MathUtils.radToDeg(2 * Math.atan(Math.tan(MathUtils.degToRad(this.camera.fov) / 2) * this.aspect));
  }

  get vfovDeg(): number {
    return this.camera.fov;
  }

  /** horizon is where the horizon is drawn, as a fraction of the screen's height from its top (<0 above it). */
  get horizon(): number {
    const d = this.camera.getWorldDirection(this.dir);
    const pitch = Math.asin(MathUtils.clamp(d.y, -1, 1));
    const y = Math.tan(-pitch) / Math.tan(MathUtils.degToRad(this.camera.fov) / 2);
    return (1 - y) / 2;
  }

  /** fit sets the vertical field of view: the setting, widened on a tall screen to show MIN_PORTRAIT_HFOV_DEG across. */
  private fit(): void {
    let v = MathUtils.clamp(this.settings.fovDeg, 30, 120);
    if (this.portrait) {
      const need = 2 * Math.atan(Math.tan(MathUtils.degToRad(MIN_PORTRAIT_HFOV_DEG) / 2) / this.aspect);
      v = Math.max(v, Math.min(MathUtils.radToDeg(need), 130));
    }
    if (v !== this.camera.fov) {
      this.camera.fov = v;
      this.camera.updateProjectionMatrix();
    }
  }

  /** update moves the camera toward its place for target (or the arena overview when null). */
  update(target: Target | null, arena: number, dt: number, spectating = false): void {
    this.fit();
    const mode = this.settings.mode === "free" && !spectating ? "chase" : this.settings.mode;
    let px: number, py: number, pz: number, lx: number, ly: number, lz: number;
    let rigid = false;
    if (mode === "free" || !target) {
      const m = arena / 2;
      const r = arena * (mode === "free" ? this.freeZoom : 0.55);
      px = m + Math.cos(this.freeYaw) * r; py = arena * (mode === "free" ? 0.45 * this.freeZoom + 0.1 : 0.75); pz = -m - Math.sin(this.freeYaw) * r;
      lx = m; ly = 0; lz = -m;
    } else if (mode === "top") {
      const h = 55 + target.speed;
      px = target.x; py = h; pz = -target.y + h * 0.25;
      lx = target.x; ly = 0; lz = -target.y;
    } else {
      // Swing behind the cycle a little slower than it turns: the turn is
      // felt, yet the view never snaps. A glance swings the same way.
      const k = (tau: number) => (this.placed ? 1 - Math.exp(-dt / tau) : 1);
      this.yaw = this.placed ? approachAngle(this.yaw, target.yaw, k(0.12)) : target.yaw;
      this.glanceYaw += (GLANCE_YAW[this.glance] - this.glanceYaw) * k(0.06);
      const turned = Math.atan2(Math.sin(target.yaw - this.lastTargetYaw), Math.cos(target.yaw - this.lastTargetYaw));
      this.lastTargetYaw = target.yaw;
      if (Math.abs(turned) > 0.5) this.lean = Math.sign(turned);
      this.lean *= Math.exp(-dt / 1.5);
      const yaw = this.yaw + this.glanceYaw;
      const fx = Math.cos(yaw), fz = -Math.sin(yaw);
      const lxv = -fz, lzv = fx; // the cycle's left, in three's axes (x, z)
      if (target.wreck) {
        // Behind and above the crash, the wall it met in the middle.
        px = target.x - fx * 22; py = 16; pz = -target.y - fz * 22;
        lx = target.x + fx * 4; ly = 0; lz = -target.y + fz * 4;
      } else if (mode === "first") {
        px = target.x + fx * 0.4; py = 1.35; pz = -target.y + fz * 0.4;
        lx = target.x + fx * 60; ly = 1.0; lz = -target.y + fz * 60;
        rigid = true;
      } else if (mode === "smart") {
        const back = 14 + target.speed * 0.1;
        px = target.x - fx * back; py = 9; pz = -target.y - fz * back;
        const ahead = 26 + target.speed * 0.3, side = 10 * this.lean;
        lx = target.x + fx * ahead + lxv * side; ly = 0; lz = -target.y + fz * ahead + lzv * side;
      } else {
        const back = this.settings.distance + target.speed * 0.06;
        const h = this.portrait ? Math.max(this.settings.height, 6) : this.settings.height;
        px = target.x - fx * back; py = h; pz = -target.y - fz * back;
        // On a tall screen look down so that the horizon is in the upper
        // quarter, a fifth of the height from the top: the point looked at
        // is at the depression angle atan(0.6 tan(vfov / 2)).
        const ahead = this.portrait ? h / (0.6 * Math.tan(MathUtils.degToRad(this.camera.fov) / 2)) - back : 14;
        lx = target.x + fx * ahead; ly = this.portrait ? 0 : 1.2; lz = -target.y + fz * ahead;
        rigid = true;
      }
    }
    const k = this.placed ? 1 - Math.exp(-dt / (target?.wreck ? 0.35 : 0.08)) : 1;
    this.pos.lerp(this.wantPos.set(px, py, pz), k);
    this.look.lerp(this.wantLook.set(lx, ly, lz), k);
    if (rigid && !target?.wreck) {
      // Rigidly attached: lerping the position would let the cycle drift
      // forward on the screen at speed.
      this.pos.set(px, py, pz);
      this.look.set(lx, ly, lz);
    }
    this.placed = true;
    this.camera.position.copy(this.pos);
    this.camera.lookAt(this.look);
  }
}
