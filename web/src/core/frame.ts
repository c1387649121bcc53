// Frame: the page's copy of the last frame the core made (web/view/view.go).
import { C, CF, CYCLE_WORDS, E, EXPL_WORDS, H, HEADER_WORDS, HOLE_WORDS, Ho, MAGIC, MAP_WORDS, MAX_PLAYERS, WALL_WORDS, Z, ZONE_WORDS } from "./layout";

/** One cycle, decoded into plain numbers (metres, m/s) for the renderer. */
export interface CycleView {
  id: number;
  present: boolean;
  inRound: boolean;
  alive: boolean;
  braking: boolean;
  walls: boolean;
  dir: number;
  x: number;
  y: number;
  turnX: number;
  turnY: number;
  speed: number;
  score: number;
  kills: number;
  deaths: number;
  deathTick: number;
  brake: number;
  /** Rubber used, metres (it dies past Frame.rubber). */
  rubberUsed: number;
  odo: number;
  segOdo: number;
  killer: number;
  /** Why it died this round (layout Cause), Cause.None while alive. */
  cause: number;
  /** Its team this round (NO_TEAM before it was dealt one). */
  team: number;
  /** Points it made this round. */
  roundScore: number;
  /** how many directions dir counts: dir points dir x 360/axes degrees counter-clockwise from +x */
  axes: number;
  /** A human player, not a bot. */
  human: boolean;
}

/** A zone of an Armagetron map (sim.State.MapZone): where, how big, what it
 * does (layout ZoneEffect), its state (layout ZoneState), and for a fortress
 * its team (-1 none) and how far it is conquered (0..1; 1 is conquered). */
export interface MapZoneView {
  x: number;
  y: number;
  radius: number;
  effect: number;
  state: number;
  owner: number;
  conquered: number;
}

/** A dying cycle's blast (sim.State.Blast): where, how far it cut, how old. */
export interface Explosion {
  owner: number;
  x: number;
  y: number;
  /** Radius the blast has reached, metres: it cut the walls inside it. */
  radius: number;
  /** Seconds since the cycle died. */
  age: number;
}

export class Frame {
  /** The header, copied: it outlives the buffer. */
  private readonly head = new Int32Array(HEADER_WORDS);
  /** The buffer as words, for the walls; valid only during update's caller's
   * turn (the buffer then goes back to the worker and reads as empty). */
  w: Int32Array = new Int32Array(0);
  readonly cycles: CycleView[] = [];
  /** This frame's explosions, copied. */
  readonly explosions: Explosion[] = [];
  /** This frame's holes, copied: owner, from, to (metres of the owner's
   * odometer) per hole, sorted by owner and then from. */
  holes = new Float32Array(0);
  /** An Armagetron map's walls (metres): x1, y1, x2, y2 per piece; empty on
   * the square map, whose rim is the square of side arena. */
  mapWalls = new Float32Array(0);
  /** Counts the changes of mapWalls, so that a drawing of them is redone
   * only when they change (a new map, or a settings set of another size). */
  mapSerial = 0;
  /** The map's zones this frame, copied. */
  readonly mapZones: MapZoneView[] = [];

  constructor() {
    for (let i = 0; i < MAX_PLAYERS; i++) {
      this.cycles.push({
        id: i, present: false, inRound: false, alive: false, braking: false, walls: false,
        dir: 0, x: 0, y: 0, turnX: 0, turnY: 0, speed: 0, score: 0, kills: 0, deaths: 0,
        deathTick: 0, brake: 0, rubberUsed: 0, odo: 0, segOdo: 0, killer: -1, cause: 0, team: 0, roundScore: 0, axes: 4, human: false,
      });
    }
  }

  /** update takes a frame from the core: the header and the cycles are copied, the walls read from buf until it goes back. */
  update(buf: Uint8Array): void {
    const w = (this.w = new Int32Array(buf.buffer, buf.byteOffset, buf.byteLength >> 2));
    if (w[H.magic] !== MAGIC) throw new Error("webtron: frame layout mismatch (rebuild web/dist)");
    for (let i = 0; i < HEADER_WORDS; i++) this.head[i] = w[i];
    const n = Math.min(w[H.cycles], MAX_PLAYERS);
    for (let i = 0; i < n; i++) {
      const o = HEADER_WORDS + i * CYCLE_WORDS;
      const c = this.cycles[i];
      const f = w[o + C.flags];
      c.present = (f & CF.present) !== 0;
      c.inRound = (f & CF.inRound) !== 0;
      c.alive = (f & CF.alive) !== 0;
      c.braking = (f & CF.braking) !== 0;
      c.walls = (f & CF.walls) !== 0;
      c.human = (f & CF.human) !== 0;
      c.dir = w[o + C.dir];
      c.x = w[o + C.x] / 1000;
      c.y = w[o + C.y] / 1000;
      c.turnX = w[o + C.turnX] / 1000;
      c.turnY = w[o + C.turnY] / 1000;
      c.speed = w[o + C.speed] / 1000;
      c.score = w[o + C.score];
      c.kills = w[o + C.kills];
      c.deaths = w[o + C.deaths];
      c.deathTick = w[o + C.deathTick];
      c.brake = w[o + C.brake] / 1e6;
      c.rubberUsed = w[o + C.rubberUsed] / 1e6;
      c.odo = w[o + C.odo] / 1000;
      c.segOdo = w[o + C.segOdo] / 1000;
      c.killer = w[o + C.killer];
      c.cause = w[o + C.cause];
      c.team = w[o + C.team];
      c.roundScore = w[o + C.roundScore];
      c.axes = Math.max(1, w[o + C.axes]);
    }
    let o = HEADER_WORDS + w[H.cycles] * CYCLE_WORDS;
    this.explosions.length = 0;
    for (let k = 0; k < w[H.explN]; k++, o += EXPL_WORDS) {
      this.explosions.push({
        owner: w[o + E.owner], x: w[o + E.x] / 1000, y: w[o + E.y] / 1000,
        radius: w[o + E.radius] / 1000, age: w[o + E.age] / this.head[H.tickRate],
      });
    }
    const nh = w[H.holeN];
    if (this.holes.length !== nh * 3) this.holes = new Float32Array(nh * 3);
    for (let k = 0; k < nh; k++, o += HOLE_WORDS) {
      this.holes[k * 3] = w[o + Ho.owner];
      this.holes[k * 3 + 1] = w[o + Ho.from] / 1000;
      this.holes[k * 3 + 2] = w[o + Ho.to] / 1000;
    }
    o += w[H.wallN] * WALL_WORDS;
    const nm = w[H.mapN] * MAP_WORDS;
    let same = this.mapWalls.length === nm;
    for (let k = 0; same && k < nm; k++) same = this.mapWalls[k] === w[o + k] / 1000;
    if (!same) {
      this.mapWalls = new Float32Array(nm);
      for (let k = 0; k < nm; k++) this.mapWalls[k] = w[o + k] / 1000;
      this.mapSerial++;
    }
    o += nm;
    const nz = w[H.mapZoneN];
    while (this.mapZones.length > nz) this.mapZones.pop();
    for (let k = 0; k < nz; k++, o += ZONE_WORDS) {
      if (k === this.mapZones.length) this.mapZones.push({ x: 0, y: 0, radius: 0, effect: 0, state: 0, owner: -1, conquered: 0 });
      const z = this.mapZones[k];
      z.x = w[o + Z.x] / 1000;
      z.y = w[o + Z.y] / 1000;
      z.radius = w[o + Z.radius] / 1000;
      z.effect = w[o + Z.effect];
      z.state = w[o + Z.state];
      z.owner = w[o + Z.owner];
      z.conquered = w[o + Z.conquered] / 1e6;
    }
  }

  get tick(): number { return this.head[H.tick]; }
  get you(): number { return this.head[H.you]; }
  get phase(): number { return this.head[H.phase]; }
  get phaseEnd(): number { return this.head[H.phaseEnd]; }
  get round(): number { return this.head[H.round]; }
  get match(): number { return this.head[H.match]; }
  get winner(): number { return this.head[H.winner]; }
  get tickRate(): number { return this.head[H.tickRate]; }
  /** Arena side in metres. */
  get arena(): number { return this.head[H.arena] / 1000; }
  get turnDelay(): number { return this.head[H.turnDelayMs] / 1000; }
  /** Ticks after a death at which its walls start to sink (for half a second), -1 never. */
  get deadWallTicks(): number { return this.head[H.deadWallTicks]; }
  /** Trail length in metres, <= 0 for infinite. */
  get wallsLength(): number { return this.head[H.wallsLength] / 1000; }
  get wallTotal(): number { return this.head[H.wallTotal]; }
  get wallFrom(): number { return this.head[H.wallFrom]; }
  get wallN(): number { return this.head[H.wallN]; }
  get updateMs(): number { return this.head[H.updateMicros] / 1000; }
  get flags(): number { return this.head[H.flags]; }
  /** Rubber a cycle may use up before it dies, metres. */
  get rubber(): number { return this.head[H.rubber] / 1e6; }
  /** Cruising speed, m/s. */
  get baseSpeed(): number { return this.head[H.baseSpeed] / 1000; }
  /** Players per team this round (TEAM_MAX_PLAYERS): 1 is every one for themselves. */
  get teamMax(): number { return this.head[H.teamMax]; }
  /** Teams that spawned this round. */
  get teams(): number { return this.head[H.teams]; }
  /** Whether the round is played in teams (and screens show them). */
  get teamMode(): boolean { return this.head[H.teamMax] > 1; }
  /** Team t's score this match. */
  teamScore(t: number): number { return t >= 0 && t < MAX_PLAYERS ? this.head[H.teamScore + t] : 0; }
  /** The points team t made this round. */
  teamRound(t: number): number { return t >= 0 && t < MAX_PLAYERS ? this.head[H.teamRound + t] : 0; }
  /** The round is over and the match reached its limits: the next round starts a new match. */
  get matchOver(): boolean { return this.head[H.matchOver] !== 0; }
  /** LIMIT_ROUNDS: rounds in a match. */
  get limitRounds(): number { return this.head[H.limitRounds]; }
  /** Whether the win zone is open. */
  get zoneOpen(): boolean { return this.head[H.zoneOpen] !== 0; }
  /** The win zone's centre and radius, metres (while open). */
  get zoneX(): number { return this.head[H.zoneX] / 1000; }
  get zoneY(): number { return this.head[H.zoneY] / 1000; }
  get zoneRadius(): number { return this.head[H.zoneRadius] / 1000; }
  /** EXPLOSION_RADIUS this round, metres. */
  get explosionRadius(): number { return this.head[H.explosionRadius] / 1000; }
  /** Word offset in w of wall record k of this frame (k < wallN). */
  wallOffset(k: number): number {
    return HEADER_WORDS + this.head[H.cycles] * CYCLE_WORDS + this.head[H.explN] * EXPL_WORDS +
      this.head[H.holeN] * HOLE_WORDS + k * WALL_WORDS;
  }
}

/** wallHeight is how high a cycle's walls stand, 1 to 0: a dead cycle's sink
 * from sight over half a second once DeadWallTicks have passed, as
 * Armagetron draws them (gNetPlayerWall::RenderNormal); they stop being
 * deadly 0.2 s into it (the frame's walls flag). */
export function wallHeight(f: Frame, c: CycleView): number {
  if (!c.inRound) return 0;
  if (c.alive || f.deadWallTicks < 0) return c.walls ? 1 : 0;
  const dt = ((f.tick - c.deathTick - f.deadWallTicks) / f.tickRate) * 2;
  return dt <= 0 ? 1 : Math.max(0, 1 - dt);
}
