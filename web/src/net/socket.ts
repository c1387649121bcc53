// Connection: the game's link to the server over a Transport, reopened by
// itself with backoff.
import { type Dial, type Transport, type TransportKind, dialWebSocket } from "./transport";

export interface ConnectionHandlers {
  /** The transport is open: send the Hello. */
  open(kind: TransportKind): void;
  message(data: Uint8Array, arrivedMs: number): void;
  /** The transport closed; retryInMs is null when it will not reopen by itself. */
  closed(reason: string, retryInMs: number | null): void;
}

/** wsURL returns ws(s)://<host>/ws for the page's (or the worker's) origin. */
export function wsURL(loc: { protocol: string; host: string } = location): string {
  const proto = loc.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${loc.host}/ws`;
}

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000];
/** The first reopen after a close that says to rejoin (soon). */
const SOON_MS = 100;
/** A connection that lasted this long resets the backoff. */
const HEALTHY_MS = 10000;

export class Connection {
  private tr: Transport | null = null;
  private attempts = 0;
  private timer = 0;
  private openedAt = 0;
  private stopped = false;
  private quick = false;

  constructor(
    private readonly url: string,
    private readonly h: ConnectionHandlers,
    private readonly dial: Dial = dialWebSocket,
  ) {}

  connect(): void {
    this.stopped = false;
    clearTimeout(this.timer);
    this.detach();
    const tr = this.dial(this.url, {
      open: (kind) => {
        this.openedAt = performance.now();
        this.h.open(kind);
      },
      message: (data, arrivedMs) => this.h.message(data, arrivedMs),
      closed: (reason) => {
        if (this.tr !== tr) return;
        this.tr = null;
        this.lost(reason);
      },
    });
    this.tr = tr;
  }

  send(b: Uint8Array): void {
    this.tr?.send(b);
  }

  /** stop closes the transport for good (until connect). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.detach();
  }

  /** soon makes the next reopen quick: the server, closing, said to rejoin
   * (its room moved to another server, which has it by now, or it stops). */
  soon(): void {
    this.quick = true;
  }

  /** reconnect closes and reopens at once: a resync after a long pause. */
  reconnect(): void {
    this.attempts = 0;
    this.connect();
  }

  private detach(): void {
    const tr = this.tr;
    this.tr = null;
    tr?.close();
  }

  private lost(reason: string): void {
    if (this.stopped) {
      this.h.closed(reason, null);
      return;
    }
    if (this.openedAt > 0 && performance.now() - this.openedAt > HEALTHY_MS) this.attempts = 0;
    this.openedAt = 0;
    const base = this.quick ? SOON_MS : BACKOFF_MS[Math.min(this.attempts, BACKOFF_MS.length - 1)];
    this.quick = false;
    this.attempts++;
    // Jitter, so a restarted server is not hit by every client at once.
    const delay = Math.round(base * (0.8 + 0.4 * Math.random()));
    this.h.closed(reason, delay);
    this.timer = setTimeout(() => this.connect(), delay) as unknown as number;
  }
}
