// The typed side of the Go game core (web/wasm/main.go): loading it, and the
// shapes of what it returns. The core runs in the worker (src/worker).
import type { PressKind } from "./layout";
import type { Notice, StartOptions } from "./messages";

/** globalThis.webtronCore, installed by the Go program. */
export interface Core {
  start(opt: StartOptions): void;
  hello(nowMs: number): Uint8Array | null;
  /** One message that arrived at arrivedMs (the MessageEvent's timeStamp); returns the error text, or null. */
  receive(msg: Uint8Array, nowMs: number, arrivedMs: number): string | null;
  /** Advances to nowMs (the clock, the simulation), then queues the pings and pongs to send, stamped with a fresh
   * performance.now(); returns what is queued to send, drained, as outgoing does. */
  update(nowMs: number): Uint8Array[];
  /** Answers the server's pings (and sends a ping of its own when due) without advancing: cheap. Returns what to send, as update. */
  exchange(nowMs: number): Uint8Array[];
  /** Writes the frame of the last update into out, or into a new, larger
   * array when out is too small (or null); returns the array written, or
   * null before the Welcome. */
  frame(out: Uint8Array | null): Uint8Array | null;
  /** True once the Welcome arrived. */
  started(): boolean;
  outgoing(): Uint8Array[];
  press(kind: PressKind, nowMs: number, queueLatencyMs: number): void;
  chat(text: string): void;
  /** JSON of Info, or "null" before start. */
  info(): string;
  /** JSON array of Notice, drained. */
  notices(): string;
  token(): Uint8Array | null;
}

export interface PlayerInfo {
  id: number;
  name: string;
  bot: boolean;
  spectator: boolean;
  connected: boolean;
  score: number;
  latencyMs: number;
  leadMs: number;
  predictedLagMs: number;
  measuredLagMs: number;
  /** Events the measured median is over (at most 64). */
  measuredLagN: number;
}

export interface Info {
  tick: number;
  tickRate: number;
  pingMs: number;
  leadMs: number;
  charityMs: number;
  charityMode: string;
  eventsSent: number;
  eventsReceived: number;
  rollbacks: number;
  postponed: number;
  lastRollbackDepth: number;
  players: PlayerInfo[];
}


export function drainNotices(core: Core): Notice[] {
  return JSON.parse(core.notices()) as Notice[];
}

/** A panic in the Go core, as its boundary returns it (web/wasm/main.go recoverJS). */
export interface CorePanic extends Error {
  name: "WebtronCorePanic";
  /** The Go stack where it panicked. */
  goStack: string;
}

/** isCorePanic tells a panic of the core from other errors. */
export function isCorePanic(e: unknown): e is CorePanic {
  return e instanceof Error && e.name === "WebtronCorePanic";
}

/**
 * throwPanics wraps the functions of an object the Go program exported
 * (webtronCore, webtronReplay): the Error an export returns when it
 * panicked is thrown to the caller, as any JavaScript failure would be, so
 * that no caller takes it for a result.
 */
export function throwPanics<T extends object>(api: T): T {
  const out: Record<string, unknown> = {};
  for (const [name, f] of Object.entries(api)) {
    if (typeof f !== "function") continue;
    out[name] = (...args: unknown[]): unknown => {
      const r: unknown = f(...args);
      if (isCorePanic(r)) throw r;
      return r;
    };
  }
  return out as T;
}

/**
 * loadCore fetches and starts the WebAssembly core once; the Go program
 * calls webtronCoreReady when its functions are installed. exited is called
 * if the Go program ends (a fatal error no recover catches): every call
 * throws from then on.
 */
export async function loadCore(url: string, exited: (why: string) => void = () => {}): Promise<Core> {
  if (typeof Go === "undefined") throw new Error("wasm_exec.js did not load");
  const go = new Go();
  const g = globalThis as unknown as { webtronCoreReady?: () => void; webtronCore?: Core };
  const ready = new Promise<void>((resolve) => {
    g.webtronCoreReady = resolve;
  });
  let instance: WebAssembly.Instance;
  const resp = fetch(url);
  try {
    instance = (await WebAssembly.instantiateStreaming(resp, go.importObject)).instance;
  } catch {
    // A server or proxy that sends the wrong Content-Type defeats streaming.
    const bytes = await (await fetch(url)).arrayBuffer();
    instance = (await WebAssembly.instantiate(bytes, go.importObject)).instance;
  }
  // The replay page reports the core's memory (src/replay/worker.ts).
  (globalThis as unknown as { webtronMemory?: unknown }).webtronMemory = instance.exports.mem;
  go.run(instance).then(
    () => exited("the core's Go program ended"),
    (e: unknown) => exited(`the core's Go program failed: ${String(e)}`),
  );
  await ready;
  const core = g.webtronCore;
  if (!core) throw new Error("webtron core did not start");
  return throwPanics(core);
}
