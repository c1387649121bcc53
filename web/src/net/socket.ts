// Connection: the game's WebSocket, reopened by itself with backoff.

export interface ConnectionHandlers {
  /** The socket is open: send the Hello. */
  open(): void;
  message(data: Uint8Array, arrivedMs: number): void;
  /** The socket closed; retryInMs is null when it will not reopen by itself. */
  closed(reason: string, retryInMs: number | null): void;
}

/** wsURL returns ws(s)://<this host>/ws. */
export function wsURL(): string {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}/ws`;
}

const BACKOFF_MS = [500, 1000, 2000, 4000, 8000];
/** A connection that lasted this long resets the backoff. */
const HEALTHY_MS = 10000;

export class Connection {
  private ws: WebSocket | null = null;
  private attempts = 0;
  private timer = 0;
  private openedAt = 0;
  private stopped = false;

  constructor(private readonly url: string, private readonly h: ConnectionHandlers) {}

  get open(): boolean {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  connect(): void {
    this.stopped = false;
    clearTimeout(this.timer);
    this.detach();
    const ws = new WebSocket(this.url);
    ws.binaryType = "arraybuffer";
    ws.onopen = () => {
      this.openedAt = performance.now();
      this.h.open();
    };
    ws.onmessage = (e: MessageEvent) => {
      // e.timeStamp is when the message arrived; the handler may run much
      // later on a busy page, and the core must not count that as network.
      if (e.data instanceof ArrayBuffer) this.h.message(new Uint8Array(e.data), e.timeStamp);
    };
    ws.onclose = (e: CloseEvent) => {
      if (this.ws !== ws) return;
      this.ws = null;
      this.lost(e.reason || (e.code === 1006 ? "connection lost" : `closed (${e.code})`));
    };
    // onerror is always followed by onclose, which reports it.
    ws.onerror = () => {};
    this.ws = ws;
  }

  send(b: Uint8Array): void {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.ws.send(b);
  }

  /** stop closes the socket for good (until connect). */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.detach();
  }

  /** reconnect closes and reopens at once: a resync after a long pause. */
  reconnect(): void {
    this.attempts = 0;
    this.connect();
  }

  private detach(): void {
    const ws = this.ws;
    this.ws = null;
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000, "bye");
    }
  }

  private lost(reason: string): void {
    if (this.stopped) {
      this.h.closed(reason, null);
      return;
    }
    if (this.openedAt > 0 && performance.now() - this.openedAt > HEALTHY_MS) this.attempts = 0;
    this.openedAt = 0;
    const base = BACKOFF_MS[Math.min(this.attempts, BACKOFF_MS.length - 1)];
    this.attempts++;
    // Jitter, so a restarted server is not hit by every client at once.
    const delay = Math.round(base * (0.8 + 0.4 * Math.random()));
    this.h.closed(reason, delay);
    this.timer = window.setTimeout(() => this.connect(), delay);
  }
}
