// Trails: every wall of the round in one instanced geometry, drawn twice (the
// wall itself and its glow on the floor) in two draw calls whatever the
// number of walls. Instance slots 0..31 hold the open segment of each cycle
// (updated every frame); slot 32+k holds closed wall k, written once when the
// core sends it, so the geometry grows in place and is never rebuilt per frame.
// Holes that explosions blew are stretches of an owner's odometer: they sit
// in a one-row float texture, sorted by owner, and each fragment skips the
// few of its own owner's that it falls in.
import {
  AdditiveBlending, BufferAttribute, DataTexture, DoubleSide, FloatType, InstancedBufferAttribute,
  InstancedBufferGeometry, Mesh, NearestFilter, RGBAFormat, Scene, ShaderMaterial, Vector2,
} from "three";
import { type Frame, wallHeight } from "../core/frame";
import { MAX_PLAYERS, W } from "../core/layout";
import { allColors } from "./colors";

export const WALL_HEIGHT = 3;
const GLOW_WIDTH = 2.5;
const FAR = -1e9; // "no cut": the whole trail stands
/** view.MaxHoles: hole records a frame carries at most; the texture's width. */
const MAX_HOLES = 2048;

const common = /* glsl */ `
  uniform vec3 uColor[${MAX_PLAYERS}];
  uniform vec2 uOwner[${MAX_PLAYERS}]; // x: how high the walls stand (1, sinking to 0 after death), y: odometer below which a finite trail has receded
  uniform vec2 uHoleSpan[${MAX_PLAYERS}]; // the owner's holes: first texel, count
  attribute vec4 aSeg;   // x1, y1, x2, y2 in metres (simulation axes)
  attribute vec2 aMeta;  // odometer at (x1, y1), owner
  varying vec3 vColor;
  varying float vOdo;
  varying float vCut;
  flat varying vec2 vSpan;
`;

// inHole: whether odometer reading odo of this fragment's owner was blown away.
const holes = /* glsl */ `
  uniform sampler2D uHoles; // texel k: from, to (metres of odometer)
  flat varying vec2 vSpan;
  bool inHole(float odo) {
    int first = int(vSpan.x + 0.5);
    int n = int(vSpan.y + 0.5);
    for (int k = 0; k < ${MAX_HOLES}; k++) {
      if (k >= n) break;
      vec4 h = texelFetch(uHoles, ivec2(first + k, 0), 0);
      if (odo >= h.x && odo < h.y) return true;
    }
    return false;
  }
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
    vSpan = uHoleSpan[o];
    vColor = uColor[o];
    vH = position.y;
    gl_Position = uOwner[o].x > 0.001
      ? projectionMatrix * modelViewMatrix * vec4(p.x, position.y * uHeight * uOwner[o].x, -p.y, 1.0)
      : vec4(2.0, 2.0, 2.0, 1.0); // outside the clip volume: nothing drawn
  }
`;

const wallFrag = /* glsl */ `
  ${holes}
  varying vec3 vColor;
  varying float vOdo;
  varying float vCut;
  varying float vH;
  void main() {
    if (vOdo < vCut || inHole(vOdo)) discard;
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
    vSpan = uHoleSpan[o];
    vColor = uColor[o];
    gl_Position = uOwner[o].x > 0.001
      ? projectionMatrix * modelViewMatrix * vec4(p.x, 0.02, -p.y, 1.0)
      : vec4(2.0, 2.0, 2.0, 1.0);
  }
`;

const glowFrag = /* glsl */ `
  ${holes}
  varying vec3 vColor;
  varying float vOdo;
  varying float vCut;
  varying float vSide;
  void main() {
    if (vOdo < vCut || inHole(vOdo)) discard;
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
  /** Per owner: first hole texel and count (uHoleSpan). */
  readonly holeSpan: Vector2[] = [];
  /** The hole texture's data: from, to, owner, 0 per texel. */
  readonly holeData = new Float32Array(MAX_HOLES * 4);
  /** Holes in the texture now. */
  holeCount = 0;
  private readonly holeTex: DataTexture;

  constructor(scene: Scene) {
    for (let i = 0; i < MAX_PLAYERS; i++) {
      this.ownerVec.push(new Vector2(0, FAR));
      this.holeSpan.push(new Vector2(0, 0));
    }
    this.holeTex = new DataTexture(this.holeData, MAX_HOLES, 1, RGBAFormat, FloatType);
    this.holeTex.magFilter = this.holeTex.minFilter = NearestFilter;
    this.holeTex.needsUpdate = true;
    const colors = allColors();
    const uniforms = {
      uColor: { value: colors },
      uOwner: { value: this.ownerVec },
      uHoleSpan: { value: this.holeSpan },
      uHoles: { value: this.holeTex },
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
      this.ownerVec[i].set(wallHeight(f, c), len > 0 ? c.odo - len : FAR);
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
    this.syncHoles(f.holes);
  }

  /** syncHoles uploads the frame's holes when they changed (owner, from, to per hole, sorted by owner). */
  private syncHoles(h: Float32Array): void {
    const n = Math.min(h.length / 3, MAX_HOLES);
    let same = n === this.holeCount;
    for (let k = 0; same && k < n; k++) {
      same = this.holeData[k * 4] === h[k * 3 + 1] && this.holeData[k * 4 + 1] === h[k * 3 + 2] && this.holeData[k * 4 + 2] === h[k * 3];
    }
    if (same) return;
    for (const s of this.holeSpan) s.set(0, 0);
    for (let k = 0; k < n; k++) {
      const owner = h[k * 3];
      this.holeData[k * 4] = h[k * 3 + 1];
      this.holeData[k * 4 + 1] = h[k * 3 + 2];
      this.holeData[k * 4 + 2] = owner;
      const span = this.holeSpan[owner];
      if (span && span.y === 0) span.set(k, 0);
      if (span) span.y++;
    }
    this.holeCount = n;
    this.holeTex.needsUpdate = true;
  }

  /** ownerVisible reports whether player i's walls are drawn (after the last sync). */
  ownerVisible(i: number): boolean {
    return this.ownerVec[i].x > 0.001;
  }
}
