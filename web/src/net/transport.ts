// Transports: how the game's binary messages reach the server. The core does
// not care which one carries them: WebTransport (datagrams for the frequent
// small messages, a stream for the rest) when the browser and the network
// allow it, a WebSocket otherwise (docs/protocol.md section 1).
//
// Transports run in the core's worker (src/worker), where a message's
// arrival time is not delayed by the page's drawing.
import { DATAGRAM_SAFE, MAX_DATAGRAM, MAX_MESSAGE } from "../core/layout";

/** Which transport carries a connection (window.webtron.state().transport). */
export type TransportKind = "webtransport" | "websocket";

/** What the page asks for: ?transport=websocket (or webtransport) in its URL; auto otherwise. */
export type TransportChoice = TransportKind | "auto";

/** What a transport reports to the connection that opened it. */
export interface TransportHandlers {
  /** The transport is open: the Hello may go out. */
  open(kind: TransportKind): void;
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

/** Dial opens a transport to url (the WebSocket's ws(s)://host/ws). */
export type Dial = (url: string, h: TransportHandlers) => Transport;

/** transportChoice reads ?transport= from a page's query string. */
export function transportChoice(search: string): TransportChoice {
  const v = new URLSearchParams(search).get("transport");
  return v === "websocket" || v === "webtransport" ? v : "auto";
}

/** dialWebSocket carries each message as one binary WebSocket message. */
export const dialWebSocket: Dial = (url, h) => {
  const ws = new WebSocket(url);
  ws.binaryType = "arraybuffer";
  let live = true;
  ws.onopen = () => {
    if (live) h.open("websocket");
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

/** How long a WebTransport attempt may take, from the first request to an
 * open stream, before the WebSocket is tried instead (a network that drops
 * UDP gives no error, only silence). */
export const FALLBACK_MS = 1000;
/** After a WebTransport attempt failed, reconnects go straight to the
 * WebSocket for this long instead of waiting for the same failure again. */
const BLOCKED_MS = 60000;
/** How long after the first a proposal's second copy leaves (pack). */
const COPY_DELAY_MS = 2;

let wtBlockedUntil = 0;

/** dialAuto tries WebTransport first and settles for the WebSocket when
 * the page has no WebTransport (a non-secure origin: plain http on a LAN
 * address), the server offers none, or the attempt fails or takes longer
 * than FALLBACK_MS. choice "websocket" skips the attempt; "webtransport"
 * makes it without the fallback. */
export function dialAuto(choice: TransportChoice): Dial {
  return (url, h) => {
    if (choice === "websocket" || (choice === "auto" && (!webTransportAvailable() || performance.now() < wtBlockedUntil))) {
      return dialWebSocket(url, h);
    }
    let current: Transport | null = null;
    let settled = false; // WebTransport opened, or the WebSocket was dialled
    const fallback = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      current?.close();
      if (choice === "webtransport") {
        h.closed(`WebTransport: ${why}`);
        return;
      }
      wtBlockedUntil = performance.now() + BLOCKED_MS;
      console.info(`webtron: WebTransport unavailable (${why}); using the WebSocket`);
      current = dialWebSocket(url, h);
    };
    const timer = setTimeout(() => fallback(`no session within ${FALLBACK_MS} ms`), FALLBACK_MS);
    const attempt = new AbortController();
    webTransportTarget(url, attempt.signal).then(
      (target) => {
        if (settled) return;
        if (!target) return fallback("the server offers none");
        current = dialWebTransport(target, {
          open(kind) {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            h.open(kind);
          },
          message: (data, arrivedMs) => h.message(data, arrivedMs),
          closed(reason) {
            if (settled) h.closed(reason);
            else fallback(reason);
          },
        });
      },
      (e: unknown) => fallback(String(e)),
    );
    return {
      send: (b) => current?.send(b),
      close() {
        settled = true;
        clearTimeout(timer);
        attempt.abort();
        current?.close();
        current = null;
      },
    };
  };
}

function webTransportAvailable(): boolean {
  return typeof WebTransport === "function" && (globalThis as { isSecureContext?: boolean }).isSecureContext !== false;
}

/** Where a WebTransport session opens, and the certificate hashes to trust. */
interface WebTransportTarget {
  url: string;
  hashes: WebTransportHash[];
}

/** webTransportTarget asks the server (GET /api/transport on the WebSocket's
 * host) where its WebTransport is; null when it serves none. The hashes
 * are asked for on every attempt: the server's certificate rotates. */
async function webTransportTarget(wsUrl: string, signal: AbortSignal): Promise<WebTransportTarget | null> {
  const u = new URL(wsUrl);
  const origin = `${u.protocol === "wss:" ? "https:" : "http:"}//${u.host}`;
  const resp = await fetch(`${origin}/api/transport`, { cache: "no-store", signal });
  if (!resp.ok) throw new Error(`/api/transport: HTTP ${resp.status}`);
  const info = (await resp.json()) as {
    webtransport?: { path?: string; certHashes?: { algorithm: string; value: string }[] } | null;
  };
  const wt = info.webtransport;
  if (!wt || typeof wt.path !== "string") return null;
  const hashes = (wt.certHashes ?? []).map((c) => ({
    algorithm: c.algorithm,
    value: Uint8Array.from(atob(c.value), (ch) => ch.charCodeAt(0)),
  }));
  // WebTransport is HTTP/3: always https, at the page's own host and port.
  const target = new URL(wt.path, origin);
  target.protocol = "https:";
  return { url: target.href, hashes };
}

/** uvarintLen is the size of n as a uvarint. */
function uvarintLen(n: number): number {
  let k = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 128);
    k++;
  }
  return k;
}

/** appendFrame writes msg with its length in front (proto.AppendFrame) at out[at:]; returns the end. */
function appendFrame(out: Uint8Array, at: number, msg: Uint8Array): number {
  let n = msg.length;
  while (n >= 0x80) {
    out[at++] = (n & 0x7f) | 0x80;
    n = Math.floor(n / 128);
  }
  out[at++] = n;
  out.set(msg, at);
  return at + msg.length;
}

/** nextFrame reads one framed message (proto.NextFrame) from b at off:
 * [start, end] of the message, null when b ends before it does, or
 * "bad" for a length that no frame has. */
function nextFrame(b: Uint8Array, off: number, limit: number): [number, number] | null | "bad" {
  let n = 0;
  let mul = 1;
  for (let i = off; i < b.length; i++) {
    const c = b[i];
    n += (c & 0x7f) * mul;
    mul *= 128;
    if (c < 0x80) {
      if (n === 0 || n > limit) return "bad";
      const start = i + 1;
      return start + n <= b.length ? [start, start + n] : null;
    }
    if (i - off >= 4) return "bad";
  }
  return null;
}

const datagramSafe = new Set(DATAGRAM_SAFE);

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** pack sorts a batch of messages as proto.Packer does: the datagram-safe
 * ones into as few datagrams of at most max bytes as hold them, in order;
 * the others (and any too large for a datagram) framed into one buffer for
 * the stream. A message equal to the one before it (the core's second copy
 * of a proposal on a lossy link) starts a datagram of its own; copies lists
 * the datagrams that begin so. */
export function pack(
  msgs: Uint8Array[],
  max: number = MAX_DATAGRAM,
): { datagrams: Uint8Array[]; copies: Set<number>; stream: Uint8Array | null } {
  const datagrams: Uint8Array[] = [];
  const copies = new Set<number>();
  const streamMsgs: Uint8Array[] = [];
  let cur: Uint8Array[] = [];
  let curSize = 0;
  const cut = () => {
    if (cur.length === 0) return;
    const d = new Uint8Array(curSize);
    let at = 0;
    for (const m of cur) at = appendFrame(d, at, m);
    datagrams.push(d);
    cur = [];
    curSize = 0;
  };
  for (const m of msgs) {
    if (m.length === 0) continue;
    const size = uvarintLen(m.length) + m.length;
    if (!datagramSafe.has(m[0]) || size > max) {
      streamMsgs.push(m);
      continue;
    }
    const copy = cur.length > 0 && sameBytes(cur[cur.length - 1], m);
    if (curSize + size > max || copy) cut();
    if (copy) copies.add(datagrams.length);
    cur.push(m);
    curSize += size;
  }
  cut();
  let stream: Uint8Array | null = null;
  if (streamMsgs.length > 0) {
    stream = new Uint8Array(streamMsgs.reduce((s, m) => s + uvarintLen(m.length) + m.length, 0));
    let at = 0;
    for (const m of streamMsgs) at = appendFrame(stream, at, m);
  }
  return { datagrams, copies, stream };
}

/** dialWebTransport opens a session at target, then the one bidirectional
 * stream the server waits for: the Hello, the Welcome, resyncs, chat and
 * errors travel on it; pings, proposals, broadcasts and heartbeats as
 * datagrams (docs/protocol.md section 1.2). Messages sent in one task (a
 * frame's flush) leave together, packed into as few datagrams as hold them. */
function dialWebTransport(target: WebTransportTarget, h: TransportHandlers): Transport {
  let live = true;
  const opts: WebTransportOptions = {};
  if (target.hashes.length > 0) opts.serverCertificateHashes = target.hashes;
  let wt: WebTransport;
  try {
    wt = new WebTransport(target.url, opts);
  } catch (e) {
    queueMicrotask(() => h.closed(String(e)));
    return { send() {}, close() {} };
  }
  let stream: WritableStreamDefaultWriter<Uint8Array> | null = null;
  let dgrams: WritableStreamDefaultWriter<Uint8Array> | null = null;
  let queued: Uint8Array[] = [];
  let flushing = false;

  const fail = (reason: string) => {
    if (!live) return;
    live = false;
    h.closed(reason);
    try {
      wt.close();
    } catch {
      // already closed
    }
  };
  const flush = () => {
    flushing = false;
    const msgs = queued;
    queued = [];
    if (!live || !stream || !dgrams) return;
    const max = Math.min(MAX_DATAGRAM, wt.datagrams.maxDatagramSize || MAX_DATAGRAM);
    const p = pack(msgs, max);
    // The stream's part first, as the server does: it never waits for a datagram.
    if (p.stream) stream.write(p.stream).catch(() => fail("connection lost"));
    // A datagram the browser cannot send is lost like one the network
    // dropped: the protocol resends what matters.
    const w = dgrams;
    p.datagrams.forEach((d, i) => {
      // A copy leaves a moment later, from another task: the browser's QUIC
      // may put datagrams written together into one packet, and a packet
      // lost would take both.
      if (p.copies.has(i)) setTimeout(() => live && w.write(d).catch(() => {}), COPY_DELAY_MS);
      else w.write(d).catch(() => {});
    });
  };

  wt.closed.then(
    (info) => fail(info.reason || (info.closeCode ? `closed (${info.closeCode})` : "connection closed")),
    (e: unknown) => fail(e instanceof Error && e.message ? e.message : "connection lost"),
  );
  wt.ready
    .then(() => wt.createBidirectionalStream())
    .then(
      (bidi) => {
        if (!live) return;
        stream = bidi.writable.getWriter();
        dgrams = wt.datagrams.writable.getWriter();
        readStream(bidi.readable.getReader());
        readDatagrams(wt.datagrams.readable.getReader() as ReadableStreamDefaultReader<Uint8Array>);
        h.open("webtransport");
      },
      (e: unknown) => fail(e instanceof Error && e.message ? e.message : "no session"),
    );

  const readStream = async (r: ReadableStreamDefaultReader<Uint8Array>) => {
    let buf: Uint8Array = new Uint8Array(0);
    for (;;) {
      let res: ReadableStreamReadResult<Uint8Array>;
      try {
        res = await r.read();
      } catch {
        return fail("connection lost");
      }
      if (res.done || !live) {
        // The server closes its side after its Error; the session's close follows.
        if (live) setTimeout(() => fail("the server closed the stream"), 1000);
        return;
      }
      const at = performance.now();
      const chunk = res.value;
      if (buf.length === 0) buf = chunk;
      else {
        const joined = new Uint8Array(buf.length + chunk.length);
        joined.set(buf);
        joined.set(chunk, buf.length);
        buf = joined;
      }
      let off = 0;
      for (;;) {
        const f = nextFrame(buf, off, MAX_MESSAGE);
        if (f === "bad") return fail("malformed stream");
        if (!f) break;
        off = f[1];
        h.message(buf.subarray(f[0], f[1]), at);
        if (!live) return;
      }
      buf = off === buf.length ? new Uint8Array(0) : buf.slice(off);
    }
  };

  const readDatagrams = async (r: ReadableStreamDefaultReader<Uint8Array>) => {
    for (;;) {
      let res: ReadableStreamReadResult<Uint8Array>;
      try {
        res = await r.read();
      } catch {
        return; // the session ended: wt.closed says why
      }
      if (res.done || !live) return;
      const at = performance.now();
      const d = res.value;
      for (let off = 0; off < d.length; ) {
        const f = nextFrame(d, off, d.length);
        if (!f || f === "bad") return fail("malformed datagram");
        h.message(d.subarray(f[0], f[1]), at);
        if (!live) return;
        off = f[1];
      }
    }
  };

  return {
    send(b) {
      if (!live) return;
      queued.push(b);
      if (!flushing) {
        flushing = true;
        queueMicrotask(flush);
      }
    },
    close() {
      if (!live) return;
      live = false;
      try {
        wt.close({ closeCode: 0, reason: "bye" });
      } catch {
        // not open yet, or closed already
      }
    },
  };
}
