// The server's replays: GET /api/replays (the list, newest first) and
// GET /api/replays/{id} (a file; 422 with the reason for a damaged one).
// server/replaycatalog.go writes both; its ReplayInfo's JSON keys are these.

export interface ReplayEntry {
  id: string;
  room: string;
  round: number;
  createdMs: number;
  startTick: number;
  endTick: number;
  seconds: number;
  players: { slot: number; name: string; bot: boolean }[];
  winner: number;
  winnerName: string;
  decided: boolean;
  damaged: boolean;
  problem?: string;
  /** Damaged only in that another version of the game's rules played it. */
  old?: boolean;
}

/** listReplays returns the newest rounds (of one room when room is given). */
export async function listReplays(limit: number, room = ""): Promise<ReplayEntry[]> {
  const q = new URLSearchParams({ limit: String(limit) });
  if (room) q.set("room", room);
  const resp = await fetch(`/api/replays?${q}`, { cache: "no-store" });
  if (!resp.ok) throw new Error(`replays: HTTP ${resp.status}`);
  const data: unknown = await resp.json();
  if (!Array.isArray(data)) return [];
  // A damaged file's entry has no players (null): the file could not say.
  return (data as ReplayEntry[]).filter((e) => typeof e?.id === "string").map((e) => ({ ...e, players: Array.isArray(e.players) ? e.players : [] }));
}

/** fetchReplay returns a file's bytes, or throws the server's reason (damaged, gone). */
export async function fetchReplay(id: string): Promise<ArrayBuffer> {
  const resp = await fetch(`/api/replays/${encodeURIComponent(id)}`);
  if (resp.ok) return resp.arrayBuffer();
  const why = (await resp.text()).trim();
  if (resp.status === 404) throw new Error("This round's replay is not on the server (it may have been pruned).");
  throw new Error(why || `HTTP ${resp.status}`);
}

/** How long "watch again" waits for the server to write the round just watched. */
const WAIT_MS = 30000;

/**
 * findRound returns the id of room's round that spans tick, waiting for it:
 * the server writes a round once the next one has started, after its
 * summary was shown. rounds written before since (ms since the epoch) are
 * another life of the room (ticks start again when a server restarts).
 */
export async function findRound(room: string, tick: number, since: number, cancelled: () => boolean): Promise<string> {
  const until = performance.now() + WAIT_MS;
  for (;;) {
    const list = await listReplays(5, room).catch(() => [] as ReplayEntry[]);
    const e = list.find((r) => r.room === room && r.startTick <= tick && tick < r.endTick && r.createdMs >= since);
    if (e) return e.id;
    if (cancelled()) throw new Error("cancelled");
    if (performance.now() > until) throw new Error("The server did not save this round (is it writing replays? see --data).");
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** replayURL is the shareable link of a round, optionally at a round time (s) following a player. */
export function replayURL(id: string, t?: number, follow?: string): string {
  const q = new URLSearchParams();
  if (t !== undefined && t > 0) q.set("t", t.toFixed(1));
  if (follow) q.set("follow", follow);
  const qs = q.toString();
  return `${location.origin}/replay/${encodeURIComponent(id)}${qs ? `?${qs}` : ""}`;
}

/** replayIDFromPath returns the id in a /replay/ID path, or "". */
export function replayIDFromPath(path: string): string {
  const m = /^\/replay\/([^/]+)\/?$/.exec(path);
  return m ? decodeURIComponent(m[1]) : "";
}

/** fmtClock writes seconds as m:ss.s. */
export function fmtClock(s: number): string {
  const m = Math.floor(s / 60);
  const r = s - m * 60;
  return `${m}:${r < 10 ? "0" : ""}${r.toFixed(1)}`;
}

/** fmtAgo says how long ago a time was, roughly. */
export function fmtAgo(ms: number, now = Date.now()): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return new Date(ms).toLocaleDateString();
}
