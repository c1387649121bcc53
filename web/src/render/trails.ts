// Trails: every wall of the round in one instanced geometry, drawn twice (the
// wall itself and its glow on the floor) in two draw calls whatever the
// number of walls. Instance slots 0..31 hold the open segment of each cycle
// (updated every frame); slot 32+k holds closed wall k, written once when the
// core sends it, so the geometry grows in place and is never rebuilt per frame.
import {
  AdditiveBlending, BufferAttribute, DoubleSide, InstancedBufferAttribute, InstancedBufferGeometry,
  Mesh, Scene, ShaderMaterial, Vector2,
} from "three";
import type { Frame } from "../core/frame";
import { MAX_PLAYERS, W } from "../core/layout";
import { allColors } from "./colors";

export const WALL_HEIGHT = 3;
const GLOW_WIDTH = 2.5;
const FAR = -1e9; // "no cut": the whole trail stands

const common = /* glsl */ `
  uniform vec3 uColor[${MAX_PLAYERS}];
  uniform vec2 uOwner[${MAX_PLAYERS}]; // x: walls stand (0/1), y: odometer below which a finite trail has receded
  attribute vec4 aSeg;   // x1, y1, x2, y2 in metres (simulation axes)
  attribute vec2 aMeta;  // odometer at (x1, y1), owner
  varying vec3 vColor;
  varying float vOdo;
  varying float vCut;
`;

const wallVert = /* glsl */ `
  ${common}
  uniform float uHeight;
  varying float vH;
  void main() {
    int o = int(aMeta.y + 0.5);
    vec2 p = mix(aSeg.xy, aSeg.zw, position.x);
    vOdo = aMeta.x + position.x * length(aSeg.zw - aSeg.xy);
    vCut = uOwner[o].y;
    vColor = uColor[o];
    vH = position.y;
    gl_Position = uOwner[o].x > 0.5
      ? projectionMatrix * modelViewMatrix * vec4(p.x, position.y * uHeight, -p.y, 1.0)
      : vec4(2.0, 2.0, 2.0, 1.0); // outside the clip volume: nothing drawn
  }
`;

const wallFrag = /* glsl */ `
  varying vec3 vColor;
  varying float vOdo;
  varying float vCut;
  varying float vH;
  void main() {
    if (vOdo < vCut) discard;
    float top = smoothstep(0.9, 1.0, vH);
    float body = 0.35 + 0.65 * vH * vH;
    vec3 c = vColor * body * 0.85 + vec3(1.0) * top * 0.8;
    gl_FragColor = vec4(c, 0.5 + 0.5 * vH);
  }
`;

const glowVert = /* glsl */ `
  ${common}
  uniform float uWidth;
  varying float vSide;
  void main() {
    int o = int(aMeta.y + 0.5);
    vec2 d = aSeg.zw - aSeg.xy;
    float len = length(d);
    vec2 dir = len > 0.0 ? d / len : vec2(1.0, 0.0);
    vec2 side = vec2(-dir.y, dir.x);
    vSide = position.y * 2.0 - 1.0;
    // Stretch the ends too, so corners glow round.
    float ext = (position.x * 2.0 - 1.0) * uWidth * 0.5;
    vec2 p = mix(aSeg.xy, aSeg.zw, position.x) + dir * ext + side * vSide * uWidth;
    vOdo = aMeta.x + position.x * len;
    vCut = uOwner[o].y;
    vColor = uColor[o];
    gl_Position = uOwner[o].x > 0.5
      ? projectionMatrix * modelViewMatrix * vec4(p.x, 0.02, -p.y, 1.0)
      : vec4(2.0, 2.0, 2.0, 1.0);
  }
`;

const glowFrag = /* glsl */ `
  varying vec3 vColor;
  varying float vOdo;
  varying float vCut;
  varying float vSide;
  void main() {
    if (vOdo < vCut) discard;
    float k = 1.0 - abs(vSide);
    gl_FragColor = vec4(vColor * k * k * 0.28, 1.0);
  }
`;

export class Trails {
  /** Instance data, readable by the minimap: slot 32+k is wall k. */
  seg: Float32Array;
  meta: Float32Array;
  /** Closed walls held (the core's count after the last sync). */
  count = 0;
  private capacity: number;
  private geom: InstancedBufferGeometry;
  private readonly wall: Mesh;
  private readonly glow: Mesh;
  private readonly ownerVec: Vector2[] = [];

  constructor(scene: Scene) {
    for (let i = 0; i < MAX_PLAYERS; i++) this.ownerVec.push(new Vector2(0, FAR));
    const colors = allColors();
    const uniforms = {
      uColor: { value: colors },
      uOwner: { value: this.ownerVec },
      uHeight: { value: WALL_HEIGHT },
      uWidth: { value: GLOW_WIDTH },
    };
    const wallMat = new ShaderMaterial({
      uniforms, vertexShader: wallVert, fragmentShader: wallFrag,
      transparent: true, depthWrite: false, blending: AdditiveBlending, side: DoubleSide,
    });
    const glowMat = new ShaderMaterial({
      uniforms, vertexShader: glowVert, fragmentShader: glowFrag,
      transparent: true, depthWrite: false, blending: AdditiveBlending,
    });
    this.capacity = 4096;
    this.seg = new Float32Array(this.capacity * 4);
    this.meta = new Float32Array(this.capacity * 2);
    this.geom = this.makeGeometry();
    this.wall = new Mesh(this.geom, wallMat);
    this.glow = new Mesh(this.geom, glowMat);
    // Bounds change every frame and span the arena: culling would only cost.
    this.wall.frustumCulled = this.glow.frustumCulled = false;
    this.glow.renderOrder = -1;
    scene.add(this.glow, this.wall);
  }

  private makeGeometry(): InstancedBufferGeometry {
    const g = new InstancedBufferGeometry();
    // A unit quad: x along the wall, y up (or across, for the glow).
    g.setAttribute("position", new BufferAttribute(new Float32Array([0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0]), 3));
    g.setIndex([0, 1, 2, 0, 2, 3]);
    const seg = new InstancedBufferAttribute(this.seg, 4);
    const meta = new InstancedBufferAttribute(this.meta, 2);
    seg.setUsage(35048); // DYNAMIC_DRAW
    meta.setUsage(35048);
    g.setAttribute("aSeg", seg);
    g.setAttribute("aMeta", meta);
    g.instanceCount = MAX_PLAYERS;
    return g;
  }

  /** grow doubles the instance buffers, keeping their content. Rare: a new geometry is cheaper than a leak. */
  private grow(slots: number): void {
    let cap = this.capacity;
    while (cap < slots) cap *= 2;
    const seg = new Float32Array(cap * 4);
    seg.set(this.seg);
    const meta = new Float32Array(cap * 2);
    meta.set(this.meta);
    this.capacity = cap;
    this.seg = seg;
    this.meta = meta;
    this.geom.dispose();
    this.geom = this.makeGeometry();
    this.wall.geometry = this.geom;
    this.glow.geometry = this.geom;
  }

  /** sync applies the frame: truncate to wallFrom, append the new walls, refresh open segments and owners. */
  sync(f: Frame): void {
    const from = f.wallFrom;
    const n = f.wallN;
    const total = from + n;
    const grown = MAX_PLAYERS + total > this.capacity;
    if (grown) this.grow(MAX_PLAYERS + total);
    const w = f.w;
    for (let k = 0; k < n; k++) {
      const o = f.wallOffset(k);
      const s = MAX_PLAYERS + from + k;
      this.seg[s * 4] = w[o + W.x1] / 1000;
      this.seg[s * 4 + 1] = w[o + W.y1] / 1000;
      this.seg[s * 4 + 2] = w[o + W.x2] / 1000;
      this.seg[s * 4 + 3] = w[o + W.y2] / 1000;
      this.meta[s * 2] = w[o + W.odo] / 1000;
      this.meta[s * 2 + 1] = w[o + W.owner];
    }
    const len = f.wallsLength;
    for (let i = 0; i < MAX_PLAYERS; i++) {
      const c = f.cycles[i];
      const open = c.alive;
      this.seg[i * 4] = open ? c.turnX : 0;
      this.seg[i * 4 + 1] = open ? c.turnY : 0;
      this.seg[i * 4 + 2] = open ? c.x : 0;
      this.seg[i * 4 + 3] = open ? c.y : 0;
      this.meta[i * 2] = c.segOdo;
      this.meta[i * 2 + 1] = i;
      this.ownerVec[i].set(c.walls ? 1 : 0, len > 0 ? c.odo - len : FAR);
    }
    const segA = this.geom.getAttribute("aSeg") as InstancedBufferAttribute;
    const metaA = this.geom.getAttribute("aMeta") as InstancedBufferAttribute;
    if (grown) {
      segA.needsUpdate = metaA.needsUpdate = true; // new buffers: upload whole
    } else {
      segA.clearUpdateRanges();
      metaA.clearUpdateRanges();
      segA.addUpdateRange(0, MAX_PLAYERS * 4);
      metaA.addUpdateRange(0, MAX_PLAYERS * 2);
      if (n > 0) {
        segA.addUpdateRange((MAX_PLAYERS + from) * 4, n * 4);
        metaA.addUpdateRange((MAX_PLAYERS + from) * 2, n * 2);
      }
      segA.needsUpdate = metaA.needsUpdate = true;
    }
    this.count = total;
    this.geom.instanceCount = MAX_PLAYERS + total;
  }

  /** ownerVisible reports whether player i's walls stand (after the last sync). */
  ownerVisible(i: number): boolean {
    return this.ownerVec[i].x > 0.5;
  }
}
