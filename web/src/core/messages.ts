// The messages between the page and the core's worker (src/worker/main.ts).
//
// The worker owns the connection, the clock and the Go core; the page owns
// drawing, input and the HUD. Per drawn frame there is one request and one
// answer, and the answer's buffer is handed back with the next request
// (transferred both ways, never copied), so a frame makes no garbage beyond
// the two small message objects.
import type { TransportChoice, TransportKind } from "../net/transport";
import type { ReplayFromWorker, ReplayToWorker } from "../replay/messages";
import type { PressKind } from "./layout";

/** What the page asks of the worker. */
export type ToWorker =
  /** Join a room; gen numbers the join, and the worker's news about it carries the same number.
   * transport is the page's ?transport= (src/net/transport.ts). */
  | { t: "start"; opts: StartOptions; url: string; transport: TransportChoice; gen: number }
  /** Advance to now and answer with a frame; buf is a spare buffer to fill (or null). */
  | { t: "frame"; buf: ArrayBuffer | null }
  /** A key press; at is when the key went down, in ms since the Unix epoch (performance.timeOrigin + event.timeStamp). */
  | { t: "press"; kind: PressKind; at: number }
  | { t: "chat"; text: string }
  /** Close the connection for good (leaving the room, or a hidden tab). */
  | { t: "stop" }
  /** Reconnect at once with the token: a fresh snapshot. */
  | { t: "reconnect" }
  /** Say "clock" with both sides' clocks; the worker answers (tests check the timeOrigin conversion). */
  | { t: "clock"; at: number }
  /** The replay player's (src/replay/messages.ts). */
  | ReplayToWorker;

/** What the worker tells the page. */
export type FromWorker =
  | { t: "ready" }
  | { t: "failed"; error: string }
  /** The core failed (it panicked, or its Go program ended): the worker stopped the game and the replay. stack: Go's, when it panicked. */
  | { t: "crashed"; error: string; stack: string }
  /** Something else failed in the worker, uncaught (a promise nobody waited on). */
  | { t: "fault"; error: string; stack: string }
  /** Answer to "clock": the page's stamp and the worker's own at receipt, both in epoch ms. */
  | { t: "clock"; sent: number; got: number }
  | ReplayFromWorker
  | News;

/** What the worker tells the page about one join (gen: the start's number). A
 * page that left and joined again may still get news of the old join, in
 * flight when it left; it recycles the frame's buffer and drops the rest. */
export type News = { gen: number } & (
  /** A frame in buf (webtron/web/view); n is its length, 0 before the Welcome.
   * work is the worker's time on this frame, ms (the update: simulation and
   * rollback; the view's encoding; the copy out of the core); recv its time on
   * the server's messages since the previous frame. */
  | { t: "frame"; buf: ArrayBuffer; n: number; work: number; recv: number }
  /** The HUD's numbers, a few times a second (JSON of Info). */
  | { t: "info"; json: string }
  | { t: "notices"; list: Notice[] }
  /** The session was welcomed; token resumes the player after a reload. */
  | { t: "welcome"; token: Uint8Array | null }
  /** The connection opened, over this transport. */
  | { t: "open"; transport: TransportKind }
  | { t: "closed"; reason: string; retryInMs: number | null }
);

export interface StartOptions {
  name: string;
  room: string;
  token: Uint8Array | null;
  spectate: boolean;
  mindReader: boolean;
  /** The map a room this join opens plays (an /api/maps id); "" the server's default. */
  map: string;
}

/** A chat line (code = sender id) or the server's reason for closing (code = proto.CloseCode). */
export interface Notice {
  kind: "chat" | "error";
  code: number;
  text: string;
}
