// Renderer: the three.js scene and the per-frame drawing of a Frame.
import { AmbientLight, Color, DirectionalLight, Scene, WebGLRenderer } from "three";
import type { CycleView, Frame } from "../core/frame";
import { Arena } from "./arena";
import { CameraRig, type Target } from "./camera";
import { syncColors } from "./colors";
import { applyTeams } from "./palette";
import { Cycles } from "./cycles";
import { Explosions } from "./explosions";
import { LagMeters } from "./lagometer";
import { Trails } from "./trails";
import { MapZones } from "./mapzones";
import { WinZone } from "./zone";

export class Renderer {
  readonly gl: WebGLRenderer;
  readonly scene = new Scene();
  readonly rig = new CameraRig();
  readonly trails: Trails;
  readonly lag: LagMeters;
  readonly explosions: Explosions;
  readonly zone: WinZone;
  readonly mapZones: MapZones;
  readonly arena: Arena;
  private readonly cycles: Cycles;
  private width = 0;
  private height = 0;
  /** The canvas's size changed since fit read it (a ResizeObserver says so:
   * reading clientWidth every frame forced a layout of the HUD's changes). */
  private resized = true;

  constructor(readonly canvas: HTMLCanvasElement) {
    this.gl = new WebGLRenderer({ canvas, antialias: true, powerPreference: "high-performance" });
    this.gl.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
    this.scene.background = new Color(0x010207);
    this.scene.add(new AmbientLight(0x8899bb, 1.2));
    const sun = new DirectionalLight(0xffffff, 1.5);
    sun.position.set(1, 3, 2);
    this.scene.add(sun);
    this.arena = new Arena(this.scene);
    this.trails = new Trails(this.scene);
    this.cycles = new Cycles(this.scene);
    this.lag = new LagMeters(this.scene);
    this.explosions = new Explosions(this.scene);
    this.zone = new WinZone(this.scene);
    this.mapZones = new MapZones(this.scene);
    new ResizeObserver(() => (this.resized = true)).observe(canvas);
    this.precompile();
  }

  /** precompile compiles the programs of every material now, the hidden
   * ones too (explosions, cycles not yet spawned), and draws them once:
   * three.js otherwise compiles each at its first use and then asks the GPU
   * process for the result, a synchronous round trip behind all the drawing
   * queued there, and the frame of the round's first explosion waited tens of
   * milliseconds for it. The next frame draws over this one. */
  private precompile(): void {
    const hidden: { visible: boolean }[] = [];
    this.scene.traverse((o) => {
      if (!o.visible) {
        hidden.push(o);
        o.visible = true;
      }
    });
    this.gl.render(this.scene, this.rig.camera);
    for (const o of hidden) o.visible = false;
  }

  private fit(): void {
    if (!this.resized) return;
    this.resized = false;
    const w = this.canvas.clientWidth || window.innerWidth;
    const h = this.canvas.clientHeight || window.innerHeight;
    if (w === this.width && h === this.height) return;
    this.width = w;
    this.height = h;
    this.gl.setSize(w, h, false);
    this.rig.resize(w, h);
  }

  /** draw renders frame f with the camera on cycle follow (-1: overview);
   * wreck pulls the camera back from it (your crash: the place and the
   * wall); spectating allows the free camera. */
  draw(f: Frame, follow: number, dt: number, wreck = false, spectating = false): void {
    this.fit();
    this.arena.resize(f.arena, f.mapWalls, f.mapSerial);
    applyTeams(f);
    syncColors();
    this.trails.sync(f);
    this.cycles.update(f.cycles, dt);
    this.explosions.update(f);
    this.zone.update(f, dt);
    this.mapZones.update(f, dt);
    this.lag.update(f.cycles, f.you, f.turnDelay);
    this.rig.update(this.target(f.cycles, follow, wreck), f.arena, dt, spectating);
    this.gl.render(this.scene, this.rig.camera);
  }

  private target(cycles: CycleView[], follow: number, wreck: boolean): Target | null {
    if (follow < 0) return null;
    const c = cycles[follow];
    return { x: c.x, y: c.y, yaw: this.cycles.yaw(follow), speed: c.speed, wreck };
  }
}
