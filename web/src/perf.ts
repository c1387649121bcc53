// Per-frame client work, kept in a ring for window.webtron.perf().

export class Ring {
  private readonly v: Float64Array;
  private n = 0;

  constructor(size = 600) {
    this.v = new Float64Array(size);
  }

  push(x: number): void {
    this.v[this.n % this.v.length] = x;
    this.n++;
  }

  get count(): number {
    return this.n;
  }

  /** percentile returns the p-th percentile (0..100) of the values held, 0 when empty. */
  percentile(p: number): number {
    const k = Math.min(this.n, this.v.length);
    if (k === 0) return 0;
    const s = this.v.slice(0, k).sort();
    return s[Math.min(k - 1, Math.floor((p / 100) * k))];
  }
}

export interface PerfReport {
  frames: number;
  update_ms: { p50: number; p99: number };
  render_ms: { p50: number; p99: number };
  /** Time between drawn frames. */
  frame_ms: { p50: number; p99: number };
  /** Frames drawn per second, from the median interval. */
  fps: number;
  /** Input queue latency: event.timeStamp to the page's handler. */
  input_ms: { p50: number; p99: number };
}

export class Perf {
  /** Time inside the core's Update (simulation and rollback), from the frame header. */
  readonly update = new Ring();
  /** Time to draw the frame on the JavaScript side (scene update and WebGL calls). */
  readonly render = new Ring();
  /** Time from one drawn frame to the next. */
  readonly interval = new Ring();
  /** How long a key or touch waited for the page's thread (event.timeStamp to its handler). */
  readonly input = new Ring(200);

  report(): PerfReport {
    const r = (x: number) => Math.round(x * 1000) / 1000;
    return {
      frames: this.render.count,
      update_ms: { p50: r(this.update.percentile(50)), p99: r(this.update.percentile(99)) },
      render_ms: { p50: r(this.render.percentile(50)), p99: r(this.render.percentile(99)) },
      frame_ms: { p50: r(this.interval.percentile(50)), p99: r(this.interval.percentile(99)) },
      input_ms: { p50: r(this.input.percentile(50)), p99: r(this.input.percentile(99)) },
      fps: this.interval.count ? r(1000 / Math.max(this.interval.percentile(50), 1e-3)) : 0,
    };
  }
}
