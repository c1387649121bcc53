// The messages between the replay page (src/replay/page.ts) and the replay
// player in the core's worker (src/replay/worker.ts). The same worker and
// the same webtron.wasm serve live play and replays: its Go program installs
// webtronReplay beside webtronCore (web/wasm/replay.go, docs/replays.md).
//
// The worker owns the play clock, as it owns the live game's: the page asks
// for a frame per animation frame and sends the viewer's commands.

/** What the page asks of the replay player. */
export type ReplayToWorker =
  /** Open a file (the bytes of GET /api/replays/{id}); gen numbers the opening. */
  | { t: "replay"; op: "open"; bytes: ArrayBuffer; gen: number }
  /** Move the clock to now and answer with a frame; buf is a spare buffer to fill. */
  | { t: "replay"; op: "frame"; buf: ArrayBuffer | null }
  /** The viewer's commands; each field present is applied, in this order. */
  | { t: "replay"; op: "control"; c: ReplayControl }
  /** Stop playing (the page left the replay). */
  | { t: "replay"; op: "close" };

export interface ReplayControl {
  /** Show this tick (seek), between info's start and end. */
  seek?: number;
  /** Move this many ticks (backward when negative); pauses. */
  step?: number;
  /** 0.25 to 8. */
  speed?: number;
  play?: boolean;
  /** The player whose view to show, -1 for the recorded truth from above. */
  view?: number;
}

/** What the replay player tells the page. */
export type ReplayFromWorker =
  /** The file opened (info: JSON of webtronReplay.info()) or did not (error). */
  | { t: "replay"; op: "opened"; gen: number; error: string | null; info: string | null; wasmBefore: number }
  /** A command the file cannot do (a view it lacks what to show with). */
  | { t: "replay"; op: "refused"; gen: number; error: string }
  /** A frame (webtron/web/view layout) of n bytes in buf; n is 0 when there is none. */
  | { t: "replay"; op: "frame"; gen: number; buf: ArrayBuffer; n: number; clock: ReplayClock; state: string | null; error: string | null };

/** Where the play clock stands. */
export interface ReplayClock {
  playing: boolean;
  speed: number;
  /** Every tick is simulated and checked (seeking anywhere is then quick). */
  loaded: boolean;
  /** How far the load pass has got, a tick. */
  loadedTo: number;
  /** The core's WebAssembly memory, bytes (it grows, never shrinks). */
  wasmBytes: number;
}

/** The parts of webtronReplay the worker uses (web/wasm/replay.go). */
export interface ReplayCore {
  open(u8: Uint8Array): string | null;
  load(ticks: number): boolean;
  info(): string;
  seek(tick: number): string | null;
  step(n: number): string | null;
  setView(slot: number): string | null;
  frame(out: Uint8Array | null): Uint8Array | null;
  state(): string;
}

/** JSON of webtronReplay.info(). */
export interface ReplayInfo {
  room: string;
  round: number;
  createdMs: number;
  version: number;
  tickRate: number;
  start: number;
  end: number;
  loaded: number;
  players: { slot: number; name: string; bot: boolean; sight: boolean }[];
  decidedTick: number;
  winner: number;
  damaged: string | null;
}

/** JSON of webtronReplay.state(). */
export interface ReplayState {
  tick: number;
  view: number;
  loaded: number;
  damaged: string | null;
  /** The true state's hash, 16 hex digits (the file's hashes are of it). */
  hash: string;
  scores: { slot: number; score: number; kills: number; deaths: number; alive: boolean }[];
  kills: { tick: number; victim: number; killer: number; cause: string }[];
  drift: { slot: number; mm: number }[];
  rollback: number;
}
