// The typed side of the Go game core (web/wasm/main.go): loading it, and the
// shapes of what it returns.
import type { PressKind } from "./layout";

export interface StartOptions {
  name: string;
  room: string;
  token: Uint8Array | null;
  spectate: boolean;
  mindReader: boolean;
}

/** globalThis.webtronCore, installed by the Go program. */
export interface Core {
  start(opt: StartOptions): void;
  hello(nowMs: number): Uint8Array | null;
  /** Returns the error text, or null. */
  /** arrivedMs: the MessageEvent's timeStamp, when the message arrived. */
  receive(msg: Uint8Array, nowMs: number, arrivedMs: number): string | null;
  /** Advances to nowMs; returns the frame buffer, or null before the Welcome. */
  frame(nowMs: number): Uint8Array | null;
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

/** A chat line (code = sender id) or the server's reason for closing (code = proto.CloseCode). */
export interface Notice {
  kind: "chat" | "error";
  code: number;
  text: string;
}


export function parseInfo(core: Core): Info | null {
  return JSON.parse(core.info()) as Info | null;
}

export function drainNotices(core: Core): Notice[] {
  return JSON.parse(core.notices()) as Notice[];
}

/**
 * loadCore fetches and starts the WebAssembly core once; the Go program
 * calls webtronCoreReady when its functions are installed.
 */
export async function loadCore(url: string = WASM_URL): Promise<Core> {
  if (typeof Go === "undefined") throw new Error("wasm_exec.js did not load");
  const go = new Go();
  const ready = new Promise<void>((resolve) => {
    window.webtronCoreReady = resolve;
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
  go.run(instance).catch((e: unknown) => console.error("webtron core stopped", e));
  await ready;
  const core = (globalThis as unknown as { webtronCore?: Core }).webtronCore;
  if (!core) throw new Error("webtron core did not start");
  return core;
}
