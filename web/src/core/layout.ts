// The frame buffer layout written by package webtron/web/view (view.go has the
// full description). Every value is an int32 word; distances in millimetres.

export const MAGIC = 0x57540001;
export const HEADER_WORDS = 24;
export const CYCLE_WORDS = 16;
export const WALL_WORDS = 6;

/** Header word offsets. */
export const H = {
  magic: 0,
  tick: 1,
  you: 2,
  phase: 3,
  phaseEnd: 4,
  round: 5,
  match: 6,
  winner: 7,
  tickRate: 8,
  arena: 9,
  turnDelayMs: 10,
  deadWallTicks: 11,
  wallsLength: 12,
  cycles: 13,
  wallTotal: 14,
  wallFrom: 15,
  wallN: 16,
  updateMicros: 17,
  flags: 18,
} as const;

/** Header flag: notices (chat, server errors) wait in core.notices(). */
export const FLAG_NOTICES = 1;

/** Cycle record word offsets. */
export const C = {
  flags: 0,
  dir: 1,
  x: 2,
  y: 3,
  turnX: 4,
  turnY: 5,
  speed: 6,
  score: 7,
  kills: 8,
  deaths: 9,
  deathTick: 10,
  brake: 11,
  rubberUsed: 12,
  odo: 13,
  segOdo: 14,
  killer: 15,
} as const;

/** Cycle flag bits. */
export const CF = {
  present: 1,
  inRound: 2,
  alive: 4,
  braking: 8,
  walls: 16,
} as const;

/** Wall record word offsets. */
export const W = { x1: 0, y1: 1, x2: 2, y2: 3, odo: 4, owner: 5 } as const;

/** sim.Phase values. */
export const Phase = { Waiting: 0, Prepare: 1, Play: 2, Over: 3 } as const;

/** sim.EventKind values a player may press. */
export const Press = { Left: 1, Right: 2, BrakeOn: 3, BrakeOff: 4 } as const;
export type PressKind = (typeof Press)[keyof typeof Press];

export const MAX_PLAYERS = 32;
