// The core's worker: the Go game core, the connection to the server and the
// clock, away from the page's main thread.
//
// Why a worker: Chromium stamps a WebSocket MessageEvent with the time its
// thread dispatches it. On a page that spends 30 ms a frame drawing in
// software, that is tens of milliseconds after the message arrived, and the
// core counted it as network time: the ping, the clock and the measured lags
// all grew with the page's drawing. In this thread nothing else runs, so a
// message is stamped when it arrives and a server's ping is answered at once.
// The page asks for a frame once per animation frame and draws what comes
// back (src/core/remote.ts); key presses come with their own time stamps,
// converted between the two threads' clocks through performance.timeOrigin.
import { drainNotices, type Core, isCorePanic, loadCore, throwPanics } from "../core/core";
import { Close, FLAG_NOTICES, H, Msg } from "../core/layout";
import type { FromWorker, StartOptions, ToWorker } from "../core/messages";
import { Connection } from "../net/socket";
import { type TransportChoice, type TransportKind, dialAuto } from "../net/transport";
import type { ReplayCore, ReplayToWorker } from "../replay/messages";
import { ReplayPlayer } from "../replay/worker";

/** The parts of DedicatedWorkerGlobalScope used here (the DOM typings describe a window). */
interface WorkerScope {
  postMessage(msg: FromWorker, transfer?: Transferable[]): void;
  onmessage: ((e: MessageEvent<ToWorker>) => void) | null;
  importScripts(...urls: string[]): void;
}
const scope = self as unknown as WorkerScope;

/** How often the HUD's numbers go to the page. */
const INFO_EVERY_MS = 250;
/** An update this long after the previous one (a sleeping laptop, a frozen
 * tab: this thread's timers stood still too, see info) reconnects for a fresh
 * snapshot instead of replaying every missed tick. */
const RESYNC_GAP_MS = 2000;
/** The oldest key press the mind reader takes at its word (netcode.md section 4). */
const MAX_QUEUE_MS = 100;

class CoreWorker {
  private conn: Connection | null = null;
  private opts: StartOptions | null = null;
  private open = false;
  private welcomed = false;
  private lastUpdate = 0;
  private infoTimer = 0;
  private gen = 0;
  /** Time spent on the server's messages since the last frame, ms (window.webtron.perf()). */
  private recvMs = 0;

  constructor(private readonly core: Core) {}

  handle(m: ToWorker): void {
    guard(() => this.dispatch(m));
  }

  private dispatch(m: ToWorker): void {
    switch (m.t) {
      case "start":
        this.gen = m.gen;
        this.start(m.opts, m.url, m.transport);
        break;
      case "frame":
        this.frame(m.buf);
        break;
      case "press": {
        const now = performance.now();
        // at is epoch time; this thread's performance.now() counts from its
        // own timeOrigin, not the page's.
        const lat = now - (m.at - performance.timeOrigin);
        this.core.press(m.kind, now, lat >= 0 && lat < 1000 ? Math.min(lat, MAX_QUEUE_MS) : 0);
        this.flush();
        break;
      }
      case "chat":
        this.core.chat(m.text);
        this.flush();
        break;
      case "stop":
        this.stop();
        break;
      case "reconnect":
        this.resync();
        break;
      case "clock":
        scope.postMessage({ t: "clock", sent: m.at, got: performance.timeOrigin + performance.now() });
        break;
    }
  }

  private start(opts: StartOptions, url: string, transport: TransportChoice): void {
    this.stop();
    this.opts = opts;
    this.conn = new Connection(
      url,
      {
        open: (kind) => guard(() => this.opened(kind)),
        message: (data, arrivedMs) => guard(() => this.received(data, arrivedMs)),
        closed: (reason, retryInMs) => {
          this.open = false;
          scope.postMessage({ t: "closed", reason, retryInMs, gen: this.gen });
        },
      },
      dialAuto(transport),
    );
    this.conn.connect();
    this.infoTimer = setInterval(() => guard(() => this.info()), INFO_EVERY_MS) as unknown as number;
  }

  /** stop closes the connection for good (also when the core crashed: nothing calls it after). */
  stop(): void {
    this.conn?.stop();
    this.conn = null;
    this.open = false;
    clearInterval(this.infoTimer);
  }

  /** opened starts a new session for the new connection: a reconnect resumes the player with the token. */
  private opened(kind: TransportKind): void {
    if (!this.opts) return;
    this.open = true;
    this.welcomed = false;
    this.core.start(this.opts);
    const hello = this.core.hello(performance.now());
    if (hello) this.conn?.send(hello);
    this.flush();
    scope.postMessage({ t: "open", transport: kind, gen: this.gen });
  }

  private received(data: Uint8Array, arrivedMs: number): void {
    const t0 = performance.now();
    const err = this.core.receive(data, t0, arrivedMs);
    // A server's ping is answered now, not at the next frame, and without
    // advancing the simulation: the server writes its ping, its heartbeat
    // and its pongs together, and this thread stamps each message when it
    // gets to it, so a rollback here would delay the stamp of the pong
    // behind it (by a millisecond and more, measured). The rest waits for
    // the frame's update.
    if (data[0] === Msg.Ping && this.open) {
      this.send(this.core.exchange(performance.now()));
    }
    // The server's reason for closing comes with an error; a chat line waits
    // for the next frame, whose header says so (a call into the core per
    // message to ask cost more than the message).
    if (err) this.notices();
    if (!this.welcomed && this.core.started()) {
      this.welcomed = true;
      const token = this.core.token();
      if (this.opts && token) this.opts.token = token;
      scope.postMessage({ t: "welcome", token, gen: this.gen });
      this.info();
    }
    if (err && !this.stopping()) console.warn("webtron:", err);
    this.recvMs += performance.now() - t0;
  }

  /** stopping: the connection is closing for good (the server said why). */
  private stopping(): boolean {
    return this.conn === null;
  }

  /** update advances the core to now and sends what it queued; false when it resyncs instead. */
  private update(now: number): boolean {
    if (!this.open) return false;
    if (this.welcomed && this.lastUpdate > 0 && now - this.lastUpdate > RESYNC_GAP_MS) {
      this.resync();
      return false;
    }
    this.lastUpdate = now;
    this.send(this.core.update(now));
    return true;
  }

  private frame(spare: ArrayBuffer | null): void {
    const t0 = performance.now();
    let out: Uint8Array | null = null;
    if (this.update(t0)) {
      out = this.core.frame(spare && spare.byteLength > 0 ? new Uint8Array(spare) : null);
      // The header's flags word, little-endian: its low byte holds FLAG_NOTICES.
      if (out && out[4 * H.flags] & FLAG_NOTICES) this.notices();
    }
    const gen = this.gen;
    const work = performance.now() - t0;
    const recv = this.recvMs;
    this.recvMs = 0;
    if (out) scope.postMessage({ t: "frame", buf: out.buffer as ArrayBuffer, n: out.byteLength, work, recv, gen }, [out.buffer as ArrayBuffer]);
    else if (spare) scope.postMessage({ t: "frame", buf: spare, n: 0, work, recv, gen }, [spare]);
    else scope.postMessage({ t: "frame", buf: new ArrayBuffer(0), n: 0, work, recv, gen });
  }

  /** resync drops the session and joins again with the token: the server sends a fresh snapshot. */
  private resync(): void {
    this.open = false;
    this.welcomed = false;
    this.lastUpdate = 0;
    this.conn?.reconnect();
  }

  private flush(): void {
    this.send(this.core.outgoing());
  }

  /** send sends messages the core queued (update and exchange return theirs: one call into the core fewer). */
  private send(msgs: Uint8Array[]): void {
    if (!this.conn) return;
    for (const m of msgs) this.conn.send(m);
  }

  private notices(): void {
    const list = drainNotices(this.core);
    // The server forgot us: join as a new player on the next attempt.
    if (this.opts && list.some((n) => n.kind === "error" && n.code === Close.BadToken)) this.opts.token = null;
    // The server said to rejoin (a room moved to another server): at once.
    if (list.some((n) => n.kind === "error" && n.code === Close.Shutdown)) this.conn?.soon();
    if (list.length > 0) scope.postMessage({ t: "notices", list, gen: this.gen });
  }

  private info(): void {
    // A page whose main thread is busy (its first frame compiling shaders
    // on a slow machine) asks for no frame for a while: the core keeps
    // time here, so that only a stall of this thread itself (a sleeping
    // laptop, a frozen tab) counts as the gap that resyncs.
    const now = performance.now();
    if (this.welcomed && now - this.lastUpdate >= INFO_EVERY_MS) this.update(now);
    if (this.welcomed) scope.postMessage({ t: "info", json: this.core.info(), gen: this.gen });
  }
}

/** What stops when the core fails: the game's connection and the replay,
 * so that no timer or frame calls it again (the page would be told again
 * and again); the page may start it again, a panic recovered leaves a core
 * that can. */
let stopAll = () => {};

/** guard runs f, which calls into the core: a throw (a panic the core
 * returned, or a core whose Go program ended) stops the game and tells the
 * page, which shows why (src/fatal.ts) and reports it. */
function guard(f: () => void): void {
  try {
    f();
  } catch (e) {
    crash(e);
  }
}

function crash(e: unknown): void {
  stopAll();
  const error = e instanceof Error ? e.message : String(e);
  const stack = isCorePanic(e) ? e.goStack : e instanceof Error ? (e.stack ?? "") : "";
  scope.postMessage({ t: "crashed", error, stack });
}

// A promise that failed in this worker outside the guarded calls: the page reports it.
self.addEventListener("unhandledrejection", (e) => {
  const r = (e as PromiseRejectionEvent).reason;
  scope.postMessage({ t: "fault", error: r instanceof Error ? r.message : String(r), stack: r instanceof Error ? (r.stack ?? "") : "" });
});

scope.importScripts(WASM_EXEC_URL);
loadCore(WASM_URL, (why) => crash(new Error(why))).then(
  (core) => {
    const w = new CoreWorker(core);
    // The same binary plays replays (src/replay/worker.ts).
    const replays = new ReplayPlayer(throwPanics((globalThis as unknown as { webtronReplay: ReplayCore }).webtronReplay), (m, tr) =>
      scope.postMessage(m, tr),
    );
    stopAll = () => {
      w.stop();
      replays.handle({ t: "replay", op: "close" });
    };
    scope.onmessage = (e) => {
      if (e.data.t === "replay") guard(() => replays.handle(e.data as ReplayToWorker));
      else w.handle(e.data);
    };
    scope.postMessage({ t: "ready" });
  },
  (e: unknown) => scope.postMessage({ t: "failed", error: String(e) }),
);
