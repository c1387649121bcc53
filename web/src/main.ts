// Entry point: the lobby, a room or a replay. The URL says which: / is the
// lobby, /?room=NAME&name=PLAYER a room (add &spectate=1 to watch, &map=ID
// for the map of a room the join opens, &mindreader=0 to turn negative
// input delay off), /replay/ID a recorded round (?t=SECONDS&follow=NAME).
// Joining from the lobby pushes the room's URL, so the browser's Back button
// returns to the lobby and Forward goes back in; a reload joins the room in
// the URL again, and the reconnect token this browser keeps (localStorage,
// src/net/token.ts) resumes the same player.
import { Remote, type WorkerFailure } from "./core/remote";
import { type FatalKind, hideFatal, showFatal } from "./fatal";
import type { Game } from "./game";
import { installHook } from "./hook";
import { $ } from "./hud/dom";
import { clip, type JoinRequest, Lobby, MAX_MAP, MAX_NAME, MAX_ROOM, randomName } from "./hud/lobby";
import { settingsPanel } from "./hud/settingsPanel";
import { Sound } from "./hud/sound";
import { roomLabel } from "./net/practice";
import type { Renderer } from "./render/renderer";
import { webglProblem } from "./render/webgl";
import { attachSummaryLinks } from "./replay/again";
import { replayIDFromPath } from "./replay/api";
import { RecentRounds } from "./replay/list";
import type { ReplayOptions, ReplayPage } from "./replay/page";
import { report, reportUncaught } from "./report";

let game: Game | null = null;
let replay: ReplayPage | null = null;
let renderer: Renderer | null = null;
let remote: Remote | null = null;
/** When this page joined its room (ms since the epoch): "watch again" looks for rounds written since. */
let joinedAt = 0;
const sound = new Sound();
// Browsers let audio start only in a user gesture: Play's click, or any key or touch.
for (const ev of ["pointerdown", "keydown", "touchstart"]) window.addEventListener(ev, () => sound.unlock(), { capture: true, passive: true });
reportUncaught();
// Start the core's worker (it fetches the 3 MB core) while the player reads the lobby.
const remotePromise = Remote.load().then((r) => {
  r.onFailure = failed;
  return (remote = r);
});
remotePromise.catch(() => {}); // reported when joining
// And the game's code with the 3D engine, which the lobby does without.
const playPromise = import("./play");
playPromise.catch(() => {}); // reported when joining

installHook(() => ({ game, remote, sound, replay }));

const lobby = new Lobby((r) => void join(r, true));
new RecentRounds((id) => void watch(id, {}, true));

/** The history entry of a room or a replay carries this state, so leaving knows to go back to the lobby's entry. */
interface RoomEntry {
  webtron: "room";
}

/** requestFromURL returns the room the URL names, or null for the lobby. */
function requestFromURL(): JoinRequest | null {
  if (location.pathname !== "/") return null;
  const params = new URLSearchParams(location.search);
  const room = clip(params.get("room") ?? "", MAX_ROOM);
  if (!room) return null;
  const name = clip(params.get("name") ?? localStorage.getItem("webtron.name") ?? "", MAX_NAME) || randomName();
  const spectate = params.has("spectate") && params.get("spectate") !== "0";
  // The map chosen for the room stays in its URL: a reload after the room
  // closed opens it again on the same map.
  const map = clip(params.get("map") ?? "", MAX_MAP);
  return { room, name, spectate, map };
}

/** replayFromURL returns the replay the URL names, or null. */
function replayFromURL(): { id: string; opt: ReplayOptions } | null {
  const id = replayIDFromPath(location.pathname);
  if (!id) return null;
  const params = new URLSearchParams(location.search);
  const t = Number(params.get("t") ?? "");
  const follow = params.get("follow") ?? "";
  return { id, opt: { t: Number.isFinite(t) && t > 0 ? t : undefined, follow: follow || undefined } };
}

function roomURL(r: JoinRequest): string {
  const q = new URLSearchParams({ room: r.room, name: r.name });
  if (r.spectate) q.set("spectate", "1");
  if (r.map) q.set("map", r.map);
  // Settings for testing stay with the room's URL (a reload keeps them).
  for (const k of ["mindreader", "transport"]) {
    const v = new URLSearchParams(location.search).get(k);
    if (v !== null) q.set(k, v);
  }
  return `/?${q}`;
}

/** core waits for the core's worker and the game's code, showing that the grid is loading. */
async function core(): Promise<{ remote: Remote; play: typeof import("./play") } | null> {
  $("loading").hidden = false;
  try {
    return { remote: await remotePromise, play: await playPromise };
  } catch (e) {
    fatal("load", e instanceof Error ? e.message : String(e));
    return null;
  } finally {
    $("loading").hidden = true;
  }
}

/** fatal shows why the game cannot go on (src/fatal.ts), reports it, and
 * leads back to the lobby. */
function fatal(kind: FatalKind, detail: string, stack = ""): void {
  stopAll();
  console.error(`webtron: ${kind}: ${detail}`);
  report(kind === "render" ? "webgl" : kind, detail, stack);
  showFatal(kind, detail, () => leave(""));
}

/** failed hears of failures in the core's worker: a failed core stops the game. */
function failed(f: WorkerFailure): void {
  if (f.kind === "panic") fatal("panic", f.error, f.stack);
  else {
    console.error(`webtron: the core's worker: ${f.error}`);
    report("worker", f.error, f.stack);
  }
}

/** view makes the renderer once; null, with the reason shown, when this browser cannot draw. */
function view(play: typeof import("./play")): Renderer | null {
  if (renderer) return renderer;
  try {
    renderer = new play.Renderer($<HTMLCanvasElement>("view"));
  } catch (e) {
    const missing = webglProblem();
    if (missing) fatal("webgl", missing);
    else fatal("render", e instanceof Error ? e.message : String(e), e instanceof Error ? (e.stack ?? "") : "");
  }
  return renderer;
}

/** join enters room r; push adds a history entry (a join from the lobby), otherwise the URL already names it. */
async function join(r: JoinRequest, push: boolean): Promise<void> {
  stopAll();
  hideFatal();
  lobby.hide();
  titled(`${r.spectate ? "Watching " : ""}${roomLabel(r.room)}`);
  const entry: RoomEntry = { webtron: "room" };
  if (push) history.pushState(entry, "", roomURL(r));
  else history.replaceState(isRoomEntry(history.state) ? history.state : null, "", roomURL(r));
  const c = await core();
  if (!c || !requestFromURL()) return; // Back was pressed while the core loaded
  const gl = view(c.play);
  if (!gl) return;
  const mindReader = new URLSearchParams(location.search).get("mindreader") !== "0";
  joinedAt = Date.now();
  game = new c.play.Game(c.remote, gl, sound, { ...r, mindReader }, leave);
  game.start();
}

/** watch plays a replay: id, or the one a pending search finds (watch again); push as join's. */
async function watch(id: string | Promise<string>, opt: ReplayOptions, push: boolean): Promise<void> {
  stopAll();
  hideFatal();
  lobby.hide();
  titled("Replay");
  const entry: RoomEntry = { webtron: "room" };
  const url = (s: string) => `/replay/${encodeURIComponent(s)}${opt.follow ? `?${new URLSearchParams({ follow: opt.follow })}` : ""}`;
  if (typeof id === "string" && push) history.pushState(entry, "", url(id));
  else if (typeof id !== "string") history.replaceState(null, "", "/");
  const c = await core();
  if (!c || (typeof id === "string" && !replayFromURL())) return;
  const gl = view(c.play);
  if (!gl) return;
  if (typeof id !== "string") opt = { ...opt, resolved: (s) => history.pushState(entry, "", url(s)) };
  replay = new c.play.ReplayPage(c.remote, gl, id, opt, () => leave(""));
  void replay.start();
}

function isRoomEntry(s: unknown): s is RoomEntry {
  return typeof s === "object" && s !== null && (s as RoomEntry).webtron === "room";
}

/** titled names the screen in the page's title (the tab, and the history's
 * entries, which said "Webtron" for the lobby, every room and every replay
 * alike); "" is the lobby. */
function titled(screen: string): void {
  document.title = screen ? `${screen} · Webtron` : "Webtron";
}

/** stopAll ends the room or the replay shown; the settings, opened over it, close with it. */
function stopAll(): void {
  // Left open, the panel stayed over the lobby and took the clicks meant for it.
  settingsPanel().close();
  titled("");
  game?.stop();
  game = null;
  replay?.stop();
  replay = null;
}

/** leave returns to the lobby (the Back to lobby button, or the server closed the room to us). */
function leave(message: string): void {
  stopAll();
  lobby.show(message);
  // Going back, not forward to a new "/" entry: the history keeps one lobby
  // entry and Forward still leads into the room.
  if (isRoomEntry(history.state)) history.back();
  else history.replaceState(null, "", "/");
}

attachSummaryLinks({
  current: () => {
    const r = requestFromURL();
    if (!game || !r || !game.haveFrame) return null;
    return { room: r.room, tick: game.summaryTick(), name: r.name, since: joinedAt - 10 * 60 * 1000 };
  },
  watch: (id, follow) => void watch(id, { follow }, false),
  say: (text) => game?.say(text),
});

// Back and Forward between the lobby, rooms and replays.
window.addEventListener("popstate", () => {
  hideFatal();
  const rp = replayFromURL();
  if (rp) {
    if (!replay || replay.id !== rp.id) void watch(rp.id, rp.opt, false);
    return;
  }
  const r = requestFromURL();
  if (!r) {
    if (game || replay) {
      stopAll();
      lobby.show();
    }
    return;
  }
  if (!game || !game.isFor(r)) void join(r, false);
});

const startReplay = replayFromURL();
const start = requestFromURL();
if (startReplay) void watch(startReplay.id, startReplay.opt, false);
else if (start) void join(start, false);
else lobby.show();
