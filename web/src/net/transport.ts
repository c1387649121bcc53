// Transports: how the game's binary messages reach the server. The core does
// not care which one carries them; a WebSocket does today, and a datagram
// transport (WebTransport) plugs in as another Dial.
//
// Transports run in the core's worker (src/worker), where a message's
// arrival time is not delayed by the page's drawing.

/** What a transport reports to the connection that opened it. */
export interface TransportHandlers {
  /** The transport is open: the Hello may go out. */
  open(): void;
  /** One message; arrivedMs is performance.now() when it arrived. */
  message(data: Uint8Array, arrivedMs: number): void;
  /** The transport closed (it reports nothing after this). */
  closed(reason: string): void;
}

/** An open (or opening) transport. */
export interface Transport {
  send(b: Uint8Array): void;
  /** close closes for good, reporting nothing more. */
  close(): void;
}

/** Dial opens a transport to url. */
export type Dial = (url: string, h: TransportHandlers) => Transport;

/** dialWebSocket carries each message as one binary WebSocket message. */
export const dialWebSocket: Dial = (url, h) => {
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  let live = true;
  ws.onopen = () => {
    if (live) h.open();
  };
  ws.onmessage = (e: MessageEvent) => {
    // In a worker timeStamp is when the message arrived (measured: 0.3 ms
    // after the server's send on loopback); on a page's main thread it is
    // when the thread got to it, tens of milliseconds later on a busy page
    // (docs/netcode.md section 2).
    if (live && e.data instanceof ArrayBuffer) h.message(new Uint8Array(e.data), e.timeStamp);
  };
  ws.onclose = (e: CloseEvent) => {
    if (!live) return;
    live = false;
    h.closed(e.reason || (e.code === 1006 ? "connection lost" : `closed (${e.code})`));
  };
  // onerror is always followed by onclose, which reports it.
  ws.onerror = () => {};
  return {
    send(b) {
      if (ws.readyState === WebSocket.OPEN) ws.send(b);
    },
    close() {
      live = false;
      ws.onopen = ws.onmessage = ws.onclose = ws.onerror = null;
      if (ws.readyState === WebSocket.OPEN || ws.readyState === WebSocket.CONNECTING) ws.close(1000, "bye");
    },
  };
};
