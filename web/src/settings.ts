// The player's settings: keys (two for each action, as Armagetron binds
// them), the camera, the sound's volume and the name tags over rivals.
// Stored in localStorage and applied at once: whoever reads them asks
// settings() when it needs them, or listens with onSettings.
import { CAMERA_MODES, type CameraMode, type CameraSettings, DEFAULT_CAMERA } from "./render/cameraModes";

/** Every action a key can be bound to. */
export const ACTIONS = ["left", "right", "brake", "camera", "glanceLeft", "glanceRight", "glanceBack", "chat", "scores", "fullscreen", "mute"] as const;
export type Action = (typeof ACTIONS)[number];

/** What each action is called in the settings panel. */
export const ACTION_NAMES: Record<Action, string> = {
  left: "Turn left", right: "Turn right", brake: "Brake (hold)", camera: "Camera", glanceLeft: "Glance left (hold)",
  glanceRight: "Glance right (hold)", glanceBack: "Glance back (hold)", chat: "Chat", scores: "Scoreboard", fullscreen: "Fullscreen", mute: "Sound on/off",
};

/** Keys: each action's two KeyboardEvent.code values ("" for none). */
export type KeyMap = Record<Action, [string, string]>;

/** Webtron's keys: arrows or A/D, and the rest near them. */
export const WEBTRON_KEYS: KeyMap = {
  left: ["ArrowLeft", "KeyA"], right: ["ArrowRight", "KeyD"], brake: ["ArrowDown", "KeyS"], camera: ["KeyC", ""],
  glanceLeft: ["KeyZ", ""], glanceRight: ["KeyX", ""], glanceBack: ["KeyB", ""], chat: ["Enter", "KeyT"],
  scores: ["Tab", ""], fullscreen: ["KeyF", ""], mute: ["KeyM", ""],
};

/** Armagetron 0.2.9's default layout (config/keys_cursor.cfg, the first
 * player's): cursor keys and U/O to turn, Down or I to brake, V or C to
 * switch the view, J K L to glance left, back and right. */
export const ARMAGETRON_KEYS: KeyMap = {
  left: ["ArrowLeft", "KeyU"], right: ["ArrowRight", "KeyO"], brake: ["ArrowDown", "KeyI"], camera: ["KeyV", "KeyC"],
  glanceLeft: ["KeyJ", ""], glanceRight: ["KeyL", ""], glanceBack: ["KeyK", ""], chat: ["Enter", "KeyT"],
  scores: ["Tab", ""], fullscreen: ["KeyF", ""], mute: ["KeyM", ""],
};

export interface Settings {
  keys: KeyMap;
  camera: CameraSettings;
  /** Sound volume, 0..1. */
  volume: number;
  /** A name over every rival cycle. */
  nameTags: boolean;
}

const KEY = "webtron.settings";

function defaults(): Settings {
  return { keys: structuredClone(WEBTRON_KEYS), camera: { ...DEFAULT_CAMERA }, volume: 0.8, nameTags: true };
}

let current: Settings = load();
const listeners: ((s: Settings) => void)[] = [];

/** load reads the stored settings over the defaults: a field missing or of the wrong kind keeps its default. */
function load(): Settings {
  const s = defaults();
  let raw: unknown;
  try {
    raw = JSON.parse(localStorage.getItem(KEY) ?? "null");
  } catch {
    return s;
  }
  if (!raw || typeof raw !== "object") return s;
  const r = raw as Partial<Settings>;
  if (r.keys && typeof r.keys === "object") {
    for (const a of ACTIONS) {
      const k = (r.keys as Partial<KeyMap>)[a];
      if (Array.isArray(k) && k.length === 2 && k.every((c) => typeof c === "string")) s.keys[a] = [k[0], k[1]];
    }
  }
  const c = r.camera;
  if (c && typeof c === "object") {
    if (CAMERA_MODES.includes(c.mode as CameraMode)) s.camera.mode = c.mode;
    if (typeof c.fovDeg === "number" && c.fovDeg >= 40 && c.fovDeg <= 110) s.camera.fovDeg = c.fovDeg;
    if (typeof c.height === "number" && c.height >= 1 && c.height <= 20) s.camera.height = c.height;
    if (typeof c.distance === "number" && c.distance >= 2 && c.distance <= 40) s.camera.distance = c.distance;
  }
  if (typeof r.volume === "number" && r.volume >= 0 && r.volume <= 1) s.volume = r.volume;
  if (typeof r.nameTags === "boolean") s.nameTags = r.nameTags;
  return s;
}

/** settings returns the current settings: read them, do not change them (use update). */
export function settings(): Readonly<Settings> {
  return current;
}

/** update changes the settings, stores them and tells every listener at once. */
export function update(change: (s: Settings) => void): void {
  const next = structuredClone(current);
  change(next);
  current = next;
  localStorage.setItem(KEY, JSON.stringify(current));
  for (const l of listeners) l(current);
}

/** onSettings calls fn with the settings now and after every change, until the returned function is called. */
export function onSettings(fn: (s: Settings) => void): () => void {
  listeners.push(fn);
  fn(current);
  return () => {
    const i = listeners.indexOf(fn);
    if (i >= 0) listeners.splice(i, 1);
  };
}

/** actionOf returns the action bound to a key code, or null. */
export function actionOf(code: string): Action | null {
  for (const a of ACTIONS) if (current.keys[a][0] === code || current.keys[a][1] === code) return a;
  return null;
}

/** keyName writes a key code as a person reads it. */
export function keyName(code: string): string {
  if (code === "") return "—";
  const names: Record<string, string> = { ArrowLeft: "←", ArrowRight: "→", ArrowUp: "↑", ArrowDown: "↓", Space: "Space", Enter: "Enter", Tab: "Tab", Escape: "Esc" };
  if (names[code]) return names[code];
  if (code.startsWith("Key")) return code.slice(3);
  if (code.startsWith("Digit")) return code.slice(5);
  return code;
}
