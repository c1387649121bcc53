// Entry point: the lobby, or a room. The URL says which: / is the lobby,
// /?room=NAME&name=PLAYER a room (add &spectate=1 to watch, &mindreader=0 to
// turn negative input delay off). Joining from the lobby pushes the room's
// URL, so the browser's Back button returns to the lobby and Forward goes
// back in; a reload joins the room in the URL again, and the reconnect token
// this tab keeps (sessionStorage) resumes the same player.
import { Remote } from "./core/remote";
import { Game } from "./game";
import { installHook } from "./hook";
import { $ } from "./hud/dom";
import { clip, type JoinRequest, Lobby, MAX_NAME, MAX_ROOM, randomName } from "./hud/lobby";
import { Sound } from "./hud/sound";
import { Renderer } from "./render/renderer";

let game: Game | null = null;
let renderer: Renderer | null = null;
let remote: Remote | null = null;
const sound = new Sound();
// Browsers let audio start only in a user gesture: Play's click, or any key or touch.
for (const ev of ["pointerdown", "keydown", "touchstart"]) window.addEventListener(ev, () => sound.unlock(), { capture: true, passive: true });
// Start the core's worker (it fetches the 3 MB core) while the player reads the lobby.
const remotePromise = Remote.load().then((r) => (remote = r));
remotePromise.catch(() => {}); // reported when joining

installHook(() => ({ game, remote, sound }));

const lobby = new Lobby((r) => void join(r, true));

/** The history entry of a room carries this state, so leaving knows to go back to the lobby's entry. */
interface RoomEntry {
  webtron: "room";
}

/** requestFromURL returns the room the URL names, or null for the lobby. */
function requestFromURL(): JoinRequest | null {
  const params = new URLSearchParams(location.search);
  const room = clip(params.get("room") ?? "", MAX_ROOM);
  if (!room) return null;
  const name = clip(params.get("name") ?? localStorage.getItem("webtron.name") ?? "", MAX_NAME) || randomName();
  const spectate = params.has("spectate") && params.get("spectate") !== "0";
  return { room, name, spectate };
}

function roomURL(r: JoinRequest): string {
  const q = new URLSearchParams({ room: r.room, name: r.name });
  if (r.spectate) q.set("spectate", "1");
  // Settings for testing stay with the room's URL (a reload keeps them).
  for (const k of ["mindreader", "transport"]) {
    const v = new URLSearchParams(location.search).get(k);
    if (v !== null) q.set(k, v);
  }
  return `/?${q}`;
}

/** join enters room r; push adds a history entry (a join from the lobby), otherwise the URL already names it. */
async function join(r: JoinRequest, push: boolean): Promise<void> {
  stopGame();
  lobby.hide();
  const entry: RoomEntry = { webtron: "room" };
  if (push) history.pushState(entry, "", roomURL(r));
  else history.replaceState(isRoomEntry(history.state) ? history.state : null, "", roomURL(r));
  $("loading").hidden = false;
  let core: Remote;
  try {
    core = await remotePromise;
  } catch (e) {
    $("loading").hidden = true;
    leave(`The game could not start: ${String(e)}`);
    return;
  }
  $("loading").hidden = true;
  if (!requestFromURL()) return; // Back was pressed while the core loaded
  renderer ??= new Renderer($<HTMLCanvasElement>("view"));
  const mindReader = new URLSearchParams(location.search).get("mindreader") !== "0";
  game = new Game(core, renderer, sound, { ...r, mindReader }, leave);
  game.start();
}

function isRoomEntry(s: unknown): s is RoomEntry {
  return typeof s === "object" && s !== null && (s as RoomEntry).webtron === "room";
}

function stopGame(): void {
  game?.stop();
  game = null;
}

/** leave returns to the lobby (the Back to lobby button, or the server closed the room to us). */
function leave(message: string): void {
  stopGame();
  lobby.show(message);
  // Going back, not forward to a new "/" entry: the history keeps one lobby
  // entry and Forward still leads into the room.
  if (isRoomEntry(history.state)) history.back();
  else history.replaceState(null, "", "/");
}

// Back and Forward between the lobby and a room.
window.addEventListener("popstate", () => {
  const r = requestFromURL();
  if (!r) {
    if (game) {
      stopGame();
      lobby.show();
    }
    return;
  }
  if (!game || !game.isFor(r)) void join(r, false);
});

const start = requestFromURL();
if (start) void join(start, false);
else lobby.show();
