// The arena: a dark floor with a glowing grid, and the rim (the square's, or
// an Armagetron map's walls).
import {
  AdditiveBlending, BufferGeometry, DoubleSide, Float32BufferAttribute, Mesh, PlaneGeometry, Scene,
  ShaderMaterial,
} from "three";

const floorVert = /* glsl */ `
  varying vec2 vP;
  void main() {
    vec4 w = modelMatrix * vec4(position, 1.0);
    vP = w.xz;
    gl_Position = projectionMatrix * viewMatrix * w;
  }
`;

// Lines every 10 m and brighter every 50 m, anti-aliased with screen-space
// derivatives so the grid neither flickers nor vanishes far away.
const floorFrag = /* glsl */ `
  uniform float uArena;
  varying vec2 vP;
  float grid(vec2 p, float step) {
    vec2 q = p / step;
    vec2 g = abs(fract(q - 0.5) - 0.5) / fwidth(q);
    return 1.0 - min(min(g.x, g.y), 1.0);
  }
  void main() {
    vec2 a = vec2(vP.x, -vP.y);
    bool inside = a.x >= 0.0 && a.y >= 0.0 && a.x <= uArena && a.y <= uArena;
    vec3 base = vec3(0.006, 0.01, 0.022);
    vec3 line = vec3(0.05, 0.35, 0.55);
    float k = grid(a, 10.0) * 0.45 + grid(a, 50.0) * 0.55;
    vec3 c = base + line * k * (inside ? 1.0 : 0.25);
    gl_FragColor = vec4(c, 1.0);
  }
`;

const rimVert = /* glsl */ `
  varying float vH;
  void main() {
    vH = uv.y;
    gl_Position = projectionMatrix * modelViewMatrix * vec4(position, 1.0);
  }
`;

const rimFrag = /* glsl */ `
  varying float vH;
  void main() {
    float top = smoothstep(0.92, 1.0, vH);
    vec3 c = vec3(0.35, 0.75, 1.0) * (0.15 + 0.5 * vH * vH) + vec3(0.8, 0.95, 1.0) * top;
    gl_FragColor = vec4(c, 1.0);
  }
`;

const RIM_HEIGHT = 6;

export class Arena {
  private size = 0;
  private mapSerial = -1;
  /** The map's wall pieces the rim was last built from (0: the square's). */
  mapPieces = 0;
  private readonly floor: Mesh;
  private readonly rim: Mesh;
  private readonly floorMat: ShaderMaterial;

  constructor(scene: Scene) {
    this.floorMat = new ShaderMaterial({
      uniforms: { uArena: { value: 500 } },
      vertexShader: floorVert,
      fragmentShader: floorFrag,
    });
    this.floor = new Mesh(new PlaneGeometry(1, 1), this.floorMat);
    this.floor.rotation.x = -Math.PI / 2;
    this.floor.renderOrder = -2;
    this.rim = new Mesh(new BufferGeometry(), new ShaderMaterial({
      vertexShader: rimVert, fragmentShader: rimFrag, side: DoubleSide,
      transparent: true, blending: AdditiveBlending, depthWrite: false,
    }));
    scene.add(this.floor, this.rim);
  }

  /** resize lays out the floor and rim for an arena of side metres (sim x
   * -> x, sim y -> -z): the square's rim, or a map's walls (x1, y1, x2, y2
   * per piece) when there are any; serial tells when they changed. */
  resize(side: number, mapWalls: Float32Array, serial: number): void {
    if ((side === this.size && serial === this.mapSerial) || side <= 0) return;
    this.size = side;
    this.mapSerial = serial;
    this.floorMat.uniforms.uArena.value = side;
    // The floor reaches well past the rim so the horizon is never empty.
    const span = side * 4;
    this.floor.scale.set(span, span, 1);
    this.floor.position.set(side / 2, 0, -side / 2);
    this.mapPieces = mapWalls.length / 4;
    let pieces = mapWalls;
    if (pieces.length === 0) pieces = new Float32Array([0, 0, side, 0, side, 0, side, side, side, side, 0, side, 0, side, 0, 0]);
    const pos: number[] = [];
    const uv: number[] = [];
    for (let i = 0; i + 3 < pieces.length; i += 4) {
      const x1 = pieces[i], y1 = pieces[i + 1], x2 = pieces[i + 2], y2 = pieces[i + 3];
      pos.push(x1, 0, -y1, x2, 0, -y2, x2, RIM_HEIGHT, -y2, x1, 0, -y1, x2, RIM_HEIGHT, -y2, x1, RIM_HEIGHT, -y1);
      uv.push(0, 0, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1);
    }
    const g = new BufferGeometry();
    g.setAttribute("position", new Float32BufferAttribute(pos, 3));
    g.setAttribute("uv", new Float32BufferAttribute(uv, 2));
    this.rim.geometry.dispose();
    this.rim.geometry = g;
  }
}
