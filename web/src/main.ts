// Entry point: the lobby, or straight into a room with /?room=NAME&name=PLAYER
// (add &spectate to watch, &mindreader=0 to turn negative input delay off).
import { type Core, loadCore } from "./core/core";
import { Game } from "./game";
import { installHook } from "./hook";
import { $ } from "./hud/dom";
import { clip, type JoinRequest, Lobby } from "./hud/lobby";
import { Renderer } from "./render/renderer";

const params = new URLSearchParams(location.search);
let core: Core | null = null;
let game: Game | null = null;
let renderer: Renderer | null = null;
// Start fetching the 3 MB core while the player reads the lobby.
const corePromise = loadCore().then((c) => (core = c));
corePromise.catch(() => {}); // reported when joining

installHook(() => ({ game, core }));

const lobby = new Lobby((r) => void join(r));

async function join(r: JoinRequest): Promise<void> {
  lobby.hide();
  $("loading").hidden = false;
  let c: Core;
  try {
    c = await corePromise;
  } catch (e) {
    $("loading").hidden = true;
    lobby.show(`The game could not start: ${String(e)}`);
    return;
  }
  $("loading").hidden = true;
  renderer ??= new Renderer($<HTMLCanvasElement>("view"));
  game = new Game(c, renderer, { ...r, mindReader: params.get("mindreader") !== "0", maxFps: Math.max(0, Number(params.get("fps") ?? 0) || 0) }, leave);
  const q = new URLSearchParams({ room: r.room, name: r.name });
  if (r.spectate) q.set("spectate", "1");
  history.replaceState(null, "", `/?${q}`);
  game.start();
}

function leave(message: string): void {
  game?.stop();
  game = null;
  history.replaceState(null, "", "/");
  lobby.show(message);
}

const room = clip(params.get("room") ?? "", 32);
if (room) {
  const name = clip(params.get("name") ?? localStorage.getItem("webtron.name") ?? "", 24) || `Player${Math.floor(Math.random() * 900 + 100)}`;
  void join({ room, name, spectate: params.has("spectate") && params.get("spectate") !== "0" });
} else {
  lobby.show();
}
