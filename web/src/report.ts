// Error reports: what fails in this browser goes to the server (POST
// /api/client-error; server/clienterror.go), which counts it in /metrics and
// logs it, so that the operator learns what players meet: an uncaught
// exception on the page, one in the core's worker, a panic in the wasm core,
// a core that did not load, no WebGL.
//
// Each distinct error is sent once, and a page sends a few at most: an
// exception thrown every frame must not become a request every frame.

/** The kinds the server takes (server/clienterror.go clientErrorKinds). */
export type ReportKind = "exception" | "worker" | "panic" | "load" | "webgl";

/** The most reports one page load sends. */
const MAX_REPORTS = 8;
/** What of a message and a stack is sent: the server takes 4 KiB of JSON. */
const MAX_MESSAGE = 500;
const MAX_STACK = 1500;

const sent = new Set<string>();

/** report sends one error, unless this page sent it already or has sent MAX_REPORTS. */
export function report(kind: ReportKind, message: string, stack = ""): void {
  const key = `${kind}\n${message}`;
  if (sent.has(key) || sent.size >= MAX_REPORTS) return;
  sent.add(key);
  const body = JSON.stringify({ kind, message: message.slice(0, MAX_MESSAGE), stack: stack.slice(0, MAX_STACK), page: location.pathname });
  // keepalive: a report made as the page goes away still leaves.
  fetch("/api/client-error", { method: "POST", headers: { "Content-Type": "application/json" }, body, keepalive: true }).catch(() => {});
}

/** reportUncaught reports the page's uncaught exceptions and rejected promises nobody waited on. */
export function reportUncaught(): void {
  window.addEventListener("error", (e) => {
    // A resource that failed to load (an image, a script) has no error object: not an exception.
    if (!(e instanceof ErrorEvent)) return;
    const err: unknown = e.error;
    report("exception", e.message || String(err), err instanceof Error ? (err.stack ?? "") : `${e.filename}:${e.lineno}:${e.colno}`);
  });
  window.addEventListener("unhandledrejection", (e) => {
    const r: unknown = e.reason;
    report("exception", r instanceof Error ? r.message : String(r), r instanceof Error ? (r.stack ?? "") : "");
  });
}
