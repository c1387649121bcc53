// Per-frame client work, kept in a ring for window.webtron.perf().

/** Values a ring holds: a minute of frames at 120 fps (issue 25 measures 60 s). */
const RING = 8192;

export class Ring {
  private readonly v: Float64Array;
  private n = 0;

  constructor(size = RING) {
    this.v = new Float64Array(size);
  }

  push(x: number): void {
    this.v[this.n % this.v.length] = x;
    this.n++;
  }

  get count(): number {
    return this.n;
  }

  /** clear forgets every value held. */
  clear(): void {
    this.n = 0;
  }

  /** percentile returns the p-th percentile (0..100) of the values held, 0 when empty. */
  percentile(p: number): number {
    const k = Math.min(this.n, this.v.length);
    if (k === 0) return 0;
    const s = this.v.slice(0, k).sort();
    return s[Math.min(k - 1, Math.floor((p / 100) * k))];
  }
}

/** Percentiles of one measure, ms. */
export interface Percentiles {
  p50: number;
  p95: number;
  p99: number;
}

export interface PerfReport {
  /** Frames drawn since the page joined (or since the last reset). */
  frames: number;
  /** The core's Session.Advance alone (simulation and rollback), from the frame header. */
  update_ms: Percentiles;
  /** The worker's time per frame: the update, the view's encoding and the copy out of the core. */
  worker_ms: Percentiles;
  /** The worker's time on the server's messages between two frames. */
  recv_ms: Percentiles;
  /** The main thread's time drawing a frame: applying it, the scene and its WebGL calls (not the GPU's work), the HUD. */
  render_ms: Percentiles;
  /** The main thread's script time per frame: render_ms plus what else the game ran since the previous frame
   * (the frame's request to the worker, the HUD's refresh from Info a few times a second). */
  main_ms: Percentiles;
  /** Time between drawn frames. */
  frame_ms: Percentiles;
  /** Frames drawn per second, from the median interval. */
  fps: number;
  /** Input queue latency: event.timeStamp to the page's handler. */
  input_ms: Percentiles;
}

/** The user-timing mark of a frame drawn (e2e/frametrace_test.go looks for it). */
export const FRAME_MARK = "webtron-frame";

export class Perf {
  /** Time inside the core's Update (simulation and rollback), from the frame header. */
  readonly update = new Ring();
  /** The worker's time on each frame (update, encoding, copy), from the frame's message. */
  readonly worker = new Ring();
  /** The worker's time on the server's messages before each frame. */
  readonly recv = new Ring();
  /** Time to draw the frame on the JavaScript side (scene update and WebGL calls). */
  readonly render = new Ring();
  /** The game's script time per frame: the drawing plus its other work since the previous frame. */
  readonly main = new Ring();
  /** Time from one drawn frame to the next. */
  readonly interval = new Ring();
  /** How long a key or touch waited for the page's thread (event.timeStamp to its handler). */
  readonly input = new Ring(200);
  /** While a test traces the page (window.webtron.markFrames), each frame drawn leaves a
   * user-timing mark, FRAME_MARK: the trace groups the main thread's work by frame with it
   * and gives the thread's CPU time beside the wall-clock time the rings hold, which
   * includes waits for the GPU process and for a core. */
  marks = false;

  /** frameMark marks a frame's start in a trace (marks on), and keeps no entry: the
   * trace has it, and a timeline buffer growing by a mark a frame would cost. */
  frameMark(): void {
    if (!this.marks) return;
    performance.mark(FRAME_MARK);
    performance.clearMarks(FRAME_MARK);
  }

  /** reset starts the measures afresh (a test measures a window of its own). */
  reset(): void {
    for (const g of [this.update, this.worker, this.recv, this.render, this.main, this.interval, this.input]) g.clear();
  }

  report(): PerfReport {
    const r = (x: number) => Math.round(x * 1000) / 1000;
    const p = (g: Ring): Percentiles => ({ p50: r(g.percentile(50)), p95: r(g.percentile(95)), p99: r(g.percentile(99)) });
    return {
      frames: this.render.count,
      update_ms: p(this.update),
      worker_ms: p(this.worker),
      recv_ms: p(this.recv),
      render_ms: p(this.render),
      main_ms: p(this.main),
      frame_ms: p(this.interval),
      input_ms: p(this.input),
      fps: this.interval.count ? r(1000 / Math.max(this.interval.percentile(50), 1e-3)) : 0,
    };
  }
}
