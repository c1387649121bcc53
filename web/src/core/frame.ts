// Frame: a read-only window on the frame buffer the core fills each frame.
import { C, CF, CYCLE_WORDS, H, HEADER_WORDS, MAGIC, MAX_PLAYERS, WALL_WORDS } from "./layout";

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
  odo: number;
  segOdo: number;
  killer: number;
}

export class Frame {
  private u8: Uint8Array | null = null;
  /** The whole buffer as words; valid after update. */
  w: Int32Array = new Int32Array(HEADER_WORDS);
  readonly cycles: CycleView[] = [];

  constructor() {
    for (let i = 0; i < MAX_PLAYERS; i++) {
      this.cycles.push({
        id: i, present: false, inRound: false, alive: false, braking: false, walls: false,
        dir: 0, x: 0, y: 0, turnX: 0, turnY: 0, speed: 0, score: 0, kills: 0, deaths: 0,
        deathTick: 0, brake: 0, odo: 0, segOdo: 0, killer: -1,
      });
    }
  }

  /** update takes the core's buffer (the same object until it grows) and decodes the cycles. */
  update(buf: Uint8Array): void {
    if (buf !== this.u8) {
      this.u8 = buf;
      this.w = new Int32Array(buf.buffer, buf.byteOffset, buf.byteLength >> 2);
    }
    const w = this.w;
    if (w[H.magic] !== MAGIC) throw new Error("webtron: frame layout mismatch (rebuild web/dist)");
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
      c.odo = w[o + C.odo] / 1000;
      c.segOdo = w[o + C.segOdo] / 1000;
      c.killer = w[o + C.killer];
    }
  }

  get tick(): number { return this.w[H.tick]; }
  get you(): number { return this.w[H.you]; }
  get phase(): number { return this.w[H.phase]; }
  get phaseEnd(): number { return this.w[H.phaseEnd]; }
  get round(): number { return this.w[H.round]; }
  get winner(): number { return this.w[H.winner]; }
  get tickRate(): number { return this.w[H.tickRate]; }
  /** Arena side in metres. */
  get arena(): number { return this.w[H.arena] / 1000; }
  get turnDelay(): number { return this.w[H.turnDelayMs] / 1000; }
  /** Trail length in metres, <= 0 for infinite. */
  get wallsLength(): number { return this.w[H.wallsLength] / 1000; }
  get wallTotal(): number { return this.w[H.wallTotal]; }
  get wallFrom(): number { return this.w[H.wallFrom]; }
  get wallN(): number { return this.w[H.wallN]; }
  get updateMs(): number { return this.w[H.updateMicros] / 1000; }
  get flags(): number { return this.w[H.flags]; }
  /** Word offset of wall record k of this frame (k < wallN). */
  wallOffset(k: number): number {
    return HEADER_WORDS + this.w[H.cycles] * CYCLE_WORDS + k * WALL_WORDS;
  }
}
