// The replay player in the core's worker: webtronReplay (web/wasm/replay.go)
// behind the page's messages (messages.ts). It runs the load pass between
// frames, a few milliseconds at a time, so the first frame shows at once and
// seeking anywhere is quick once the snapshots are taken; it keeps the play
// clock: at speed s the shown tick runs s times as fast as round time.
import type { ReplayClock, ReplayControl, ReplayCore, ReplayFromWorker, ReplayToWorker } from "./messages";

/** Load pass per frame: ticks per call, and the time spent calling. */
const LOAD_TICKS = 2000;
const LOAD_MS = 8;
/** How often the scores and the kill feed go to the page while playing. */
const STATE_EVERY_MS = 100;
export const SPEED_MIN = 0.25;
export const SPEED_MAX = 8;

export class ReplayPlayer {
  private gen = 0;
  private open = false;
  private start = 0;
  private end = 0;
  private rate = 120;
  private clock: ReplayClock = { playing: false, speed: 1, loaded: false, loadedTo: 0, wasmBytes: 0 };
  /** The tick shown at anchorMs, from which a playing clock counts. */
  private anchorTick = 0;
  private anchorMs = 0;
  private stateAt = -Infinity;
  private dirty = true;
  private error: string | null = null;
  private view = -1;

  constructor(
    private readonly core: ReplayCore,
    private readonly post: (m: ReplayFromWorker, transfer?: Transferable[]) => void,
  ) {}

  handle(m: ReplayToWorker): void {
    switch (m.op) {
      case "open":
        this.openFile(m.bytes, m.gen);
        break;
      case "frame":
        this.frame(m.buf);
        break;
      case "control":
        this.control(m.c);
        break;
      case "close":
        this.open = false;
        this.clock.playing = false;
        break;
    }
  }

  private openFile(bytes: ArrayBuffer, gen: number): void {
    this.gen = gen;
    this.error = null;
    const wasmBefore = wasmBytes();
    const err = this.core.open(new Uint8Array(bytes));
    this.open = err === null;
    let info: string | null = null;
    if (this.open) {
      info = this.core.info();
      const i = JSON.parse(info) as { start: number; end: number; tickRate: number };
      this.start = i.start;
      this.end = i.end;
      this.rate = i.tickRate;
      this.clock = { playing: false, speed: 1, loaded: false, loadedTo: i.start, wasmBytes: wasmBytes() };
      this.view = -1;
      this.anchor(i.start, performance.now());
      this.dirty = true;
    }
    this.post({ t: "replay", op: "opened", gen, error: err, info, wasmBefore });
  }

  private anchor(tick: number, now: number): void {
    this.anchorTick = tick;
    this.anchorMs = now;
  }

  private shown(): number {
    return (JSON.parse(this.core.state()) as { tick: number }).tick;
  }

  private control(c: ReplayControl): void {
    if (!this.open || this.error) return;
    const now = performance.now();
    if (c.seek !== undefined) {
      const t = Math.min(Math.max(Math.round(c.seek), this.start), this.end);
      this.fail(this.core.seek(t));
      this.anchor(t, now);
    }
    if (c.step !== undefined) {
      this.clock.playing = false;
      this.fail(this.core.step(c.step));
      this.anchor(this.shown(), now);
    }
    if (c.speed !== undefined) {
      this.anchor(this.shown(), now);
      this.clock.speed = Math.min(Math.max(c.speed, SPEED_MIN), SPEED_MAX);
    }
    if (c.play !== undefined) {
      let t = this.shown();
      if (c.play && t >= this.end) t = this.start; // play at the end starts over
      if (t !== this.shown()) this.fail(this.core.seek(t));
      this.anchor(t, now);
      this.clock.playing = c.play;
    }
    if (c.view !== undefined) {
      const err = this.core.setView(c.view);
      // A view the file cannot show (a bot's, a version-1 file) is refused, not damage.
      if (err === null) this.view = c.view;
      else this.post({ t: "replay", op: "refused", gen: this.gen, error: err });
    }
    this.dirty = true;
  }

  /** fail keeps the first error: a damaged file is never played on. */
  private fail(err: string | null): void {
    if (err === null || this.error) return;
    this.error = err;
    this.clock.playing = false;
  }

  private frame(spare: ArrayBuffer | null): void {
    const now = performance.now();
    let out: Uint8Array | null = null;
    let state: string | null = null;
    if (this.open) {
      if (!this.clock.loaded) {
        const t0 = performance.now();
        while (!this.clock.loaded && performance.now() - t0 < LOAD_MS) this.clock.loaded = this.core.load(LOAD_TICKS);
        // The load pass checks every recorded hash: the first mismatch stops playing.
        const info = JSON.parse(this.core.info()) as { loaded: number; damaged: string | null };
        this.clock.loadedTo = info.loaded;
        this.clock.wasmBytes = wasmBytes();
        if (info.damaged) this.fail(info.damaged);
        this.dirty = true;
      }
      if (this.clock.playing && !this.error) {
        let t = this.anchorTick + Math.floor(((now - this.anchorMs) * this.clock.speed * this.rate) / 1000);
        if (t >= this.end) {
          t = this.end;
          this.clock.playing = false;
        }
        const from = this.shown();
        if (this.view >= 0 && t > from && t - from < this.rate) {
          // A player's view steps tick by tick: a late event rolls it back as it did her screen.
          for (let k = from; k < t && !this.error; k++) this.fail(this.core.step(1));
        } else if (t !== from) {
          this.fail(this.core.seek(t));
        }
        this.dirty = true;
      }
      if (this.dirty || now - this.stateAt >= STATE_EVERY_MS) {
        state = this.core.state();
        this.stateAt = now;
        this.dirty = false;
        const d = (JSON.parse(state) as { damaged: string | null }).damaged;
        if (d) this.fail(d);
      }
      out = this.core.frame(spare && spare.byteLength > 0 ? new Uint8Array(spare) : null);
    }
    const base = { t: "replay" as const, op: "frame" as const, gen: this.gen, clock: { ...this.clock }, state, error: this.error };
    if (out) this.post({ ...base, buf: out.buffer as ArrayBuffer, n: out.byteLength }, [out.buffer as ArrayBuffer]);
    else if (spare) this.post({ ...base, buf: spare, n: 0 }, [spare]);
    else this.post({ ...base, buf: new ArrayBuffer(0), n: 0 });
  }
}

/** wasmBytes is the size of the core's WebAssembly memory (src/core/core.ts keeps it). */
function wasmBytes(): number {
  const m = (globalThis as unknown as { webtronMemory?: WebAssembly.Memory }).webtronMemory;
  return m ? m.buffer.byteLength : 0;
}
