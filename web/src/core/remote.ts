// Remote: the page's handle on the core's worker (src/worker/main.ts). The
// worker is started with the page, so the 3 MB core loads while the player
// reads the lobby; one worker serves every room the page joins in turn.
import { type TransportKind, transportChoice } from "../net/transport";
import type { ReplayFromWorker, ReplayToWorker } from "../replay/messages";
import type { PressKind } from "./layout";
import type { FromWorker, Notice, StartOptions, ToWorker } from "./messages";

/** What the game does with the worker's news. */
export interface RemoteHandlers {
  /** A frame to draw (valid only during the call: the buffer goes back to the worker after it);
   * workMs and recvMs are the worker's time on it and on the messages before it. */
  frame(buf: Uint8Array, workMs: number, recvMs: number): void;
  info(json: string): void;
  notices(list: Notice[]): void;
  welcome(token: Uint8Array | null): void;
  open(transport: TransportKind): void;
  closed(reason: string, retryInMs: number | null): void;
}

/** A failure in the worker: panic, the core failed (the game stopped); worker, an uncaught error there. */
export type WorkerFailure = { kind: "panic" | "worker"; error: string; stack: string };

export class Remote {
  private h: RemoteHandlers | null = null;
  /** Told of every failure in the worker (src/main.ts shows and reports them). */
  onFailure: ((f: WorkerFailure) => void) | null = null;
  private spare: ArrayBuffer | null = null;
  private inFlight = false;
  private clockProbe: ((r: { sent: number; got: number }) => void) | null = null;
  private gen = 0;
  /** The replay player's news (src/replay/page.ts sets it while it plays). */
  onReplay: ((m: ReplayFromWorker) => void) | null = null;
  private replaySpare: ArrayBuffer | null = null;
  private replayInFlight = false;

  private constructor(private readonly w: Worker) {
    w.onmessage = (e: MessageEvent<FromWorker>) => this.handle(e.data);
    // An exception nothing in the worker caught comes here as well.
    w.onerror = (e) => {
      e.preventDefault();
      this.onFailure?.({ kind: "worker", error: e.message || "the core's worker failed", stack: e.filename ? `${e.filename}:${e.lineno}:${e.colno}` : "" });
    };
  }

  /** load starts the worker and waits for its core. */
  static load(url: string = WORKER_URL): Promise<Remote> {
    return new Promise((resolve, reject) => {
      const w = new Worker(url);
      w.onerror = (e) => reject(new Error(`the core's worker failed: ${e.message || "could not load"}`));
      w.onmessage = (e: MessageEvent<FromWorker>) => {
        if (e.data.t === "ready") resolve(new Remote(w));
        else if (e.data.t === "failed" || e.data.t === "crashed") reject(new Error(e.data.error));
      };
    });
  }

  /** start joins a room; h receives its news until stop. */
  start(opts: StartOptions, url: string, h: RemoteHandlers): void {
    this.h = h;
    this.gen++;
    this.post({ t: "start", opts, url, transport: transportChoice(location.search), gen: this.gen });
  }

  stop(): void {
    this.h = null;
    this.post({ t: "stop" });
  }

  reconnect(): void {
    this.post({ t: "reconnect" });
  }

  /** requestFrame asks for the next frame, unless one is on its way. */
  requestFrame(): void {
    if (this.inFlight) return;
    this.inFlight = true;
    const buf = this.spare;
    this.spare = null;
    this.post({ t: "frame", buf }, buf ? [buf] : []);
  }

  /** press sends a key press; eventTimeStamp is the event's timeStamp (this page's clock). */
  press(kind: PressKind, eventTimeStamp: number): void {
    this.post({ t: "press", kind, at: performance.timeOrigin + eventTimeStamp });
  }

  chat(text: string): void {
    this.post({ t: "chat", text });
  }

  /** clock measures how far apart the page's and the worker's epoch clocks are, plus the message's trip. */
  clock(): Promise<{ sent: number; got: number }> {
    return new Promise((resolve) => {
      this.clockProbe = resolve;
      this.post({ t: "clock", at: performance.timeOrigin + performance.now() });
    });
  }

  /** requestReplayFrame asks the replay player for a frame, unless one is on its way (as requestFrame). */
  requestReplayFrame(): void {
    if (this.replayInFlight) return;
    this.replayInFlight = true;
    const buf = this.replaySpare;
    this.replaySpare = null;
    this.post({ t: "replay", op: "frame", buf }, buf ? [buf] : []);
  }

  /** replay sends the replay player a message (the same worker plays replays). */
  replay(m: ReplayToWorker, transfer: Transferable[] = []): void {
    this.post(m, transfer);
  }

  private post(m: ToWorker, transfer: Transferable[] = []): void {
    this.w.postMessage(m, transfer);
  }

  private handle(m: FromWorker): void {
    if (m.t === "ready" || m.t === "failed") return;
    if (m.t === "crashed" || m.t === "fault") {
      if (m.t === "crashed") {
        // The worker stopped without answering the frames asked for: ask afresh next time.
        this.inFlight = this.replayInFlight = false;
        this.spare = this.replaySpare = null;
      }
      this.onFailure?.({ kind: m.t === "crashed" ? "panic" : "worker", error: m.error, stack: m.stack });
      return;
    }
    if (m.t === "replay") {
      this.onReplay?.(m);
      if (m.op === "frame") {
        this.replayInFlight = false;
        this.replaySpare = m.buf;
      }
      return;
    }
    if (m.t === "clock") {
      this.clockProbe?.(m);
      this.clockProbe = null;
      return;
    }
    if (m.t === "frame") {
      this.inFlight = false;
      this.spare = m.buf;
    }
    const h = m.gen === this.gen ? this.h : null;
    if (!h) return;
    switch (m.t) {
      case "frame":
        if (m.n > 0) h.frame(new Uint8Array(m.buf), m.work, m.recv);
        break;
      case "info":
        h.info(m.json);
        break;
      case "notices":
        h.notices(m.list);
        break;
      case "welcome":
        h.welcome(m.token);
        break;
      case "open":
        h.open(m.transport);
        break;
      case "closed":
        h.closed(m.reason, m.retryInMs);
        break;
    }
  }
}
