// The settings panel (#settings), from the lobby's Settings button and in
// game with Esc: two keys for every action (click a key, then press the new
// one; Esc leaves it, Backspace clears it), Webtron's or Armagetron's layout
// at a click, the camera and its field of view, the sound's volume, name
// tags, fullscreen, and which gamepad is connected. Every change is stored
// and applied at once (settings.ts).
import { CAMERA_MODES, type CameraMode } from "../render/cameraModes";
import { ACTION_NAMES, ACTIONS, ARMAGETRON_KEYS, type Action, keyName, onSettings, type Settings, settings, update, WEBTRON_KEYS } from "../settings";
import { $, el, setText } from "./dom";
import { toggleFullscreen } from "./fullscreen";

const CAMERA_NAMES: Record<CameraMode, string> = {
  chase: "Chase", top: "Top-down", smart: "Smart (high, looks where you turn)", first: "First person", free: "Free (spectating)",
};

class SettingsPanel {
  private readonly root = $("settings");
  private readonly keys = $("settings-keys");
  /** The key slot waiting for a key press, or null. */
  private waiting: { action: Action; slot: 0 | 1; button: HTMLElement } | null = null;
  private onClose: (() => void) | null = null;
  /** What had the focus when the panel opened (the lobby's Settings button): it has it again when the panel closes. */
  private returnFocus: HTMLElement | null = null;

  constructor() {
    this.root.hidden = true;
    const mode = $<HTMLSelectElement>("set-camera");
    mode.replaceChildren(...CAMERA_MODES.map((m) => {
      const o = el("option", CAMERA_NAMES[m]) as HTMLOptionElement;
      o.value = m;
      return o;
    }));
    mode.addEventListener("change", () => update((s) => (s.camera.mode = mode.value as CameraMode)));
    const range = (id: string, set: (s: Settings, v: number) => void) => {
      const r = $<HTMLInputElement>(id);
      r.addEventListener("input", () => update((s) => set(s, Number(r.value))));
    };
    range("set-fov", (s, v) => (s.camera.fovDeg = v));
    range("set-height", (s, v) => (s.camera.height = v));
    range("set-distance", (s, v) => (s.camera.distance = v));
    range("set-volume", (s, v) => (s.volume = v / 100));
    const tags = $<HTMLInputElement>("set-tags");
    tags.addEventListener("change", () => update((s) => (s.nameTags = tags.checked)));
    $("set-keys-webtron").addEventListener("click", () => update((s) => (s.keys = structuredClone(WEBTRON_KEYS))));
    $("set-keys-armagetron").addEventListener("click", () => update((s) => (s.keys = structuredClone(ARMAGETRON_KEYS))));
    $("set-fullscreen").addEventListener("click", () => toggleFullscreen());
    $("settings-close").addEventListener("click", () => this.close());
    // In the capture phase: a key being bound must not also steer or close.
    window.addEventListener("keydown", (e) => this.key(e), true);
    onSettings((s) => this.show(s));
  }

  get open(): boolean {
    return !this.root.hidden;
  }

  /** openPanel opens the panel; onClose runs when it closes. */
  openPanel(onClose: (() => void) | null = null): void {
    this.onClose = onClose;
    if (this.root.hidden) {
      // Not in the game: its keys go to the page, and a HUD button (the ⚙
      // just clicked) given the focus back would take the next Space.
      const a = document.activeElement;
      this.returnFocus = a instanceof HTMLElement && a !== document.body && !this.root.contains(a) && !a.closest("#game") ? a : null;
    }
    this.root.hidden = false;
    setText($("set-gamepad"), gamepadLine());
    $("settings-close").focus();
  }

  close(): void {
    if (this.root.hidden) return;
    this.stopWaiting();
    this.root.hidden = true;
    // A keyboard player carries on from where they opened the panel, not
    // from the top of the page; an element since hidden (a screen left)
    // cannot take the focus and leaves it where it falls.
    const back = this.returnFocus;
    this.returnFocus = null;
    if (back?.isConnected) back.focus({ preventScroll: true });
    const f = this.onClose;
    this.onClose = null;
    f?.();
  }

  /** show fills the panel from the settings. */
  private show(s: Settings): void {
    $<HTMLSelectElement>("set-camera").value = s.camera.mode;
    const set = (id: string, v: number, text: string) => {
      $<HTMLInputElement>(id).value = String(v);
      setText($(`${id}-value`), text);
    };
    set("set-fov", s.camera.fovDeg, `${s.camera.fovDeg}°`);
    set("set-height", s.camera.height, `${s.camera.height} m`);
    set("set-distance", s.camera.distance, `${s.camera.distance} m`);
    set("set-volume", Math.round(s.volume * 100), `${Math.round(s.volume * 100)} %`);
    $<HTMLInputElement>("set-tags").checked = s.nameTags;
    const rows = ACTIONS.map((a) => {
      const tr = el("tr");
      tr.append(el("td", ACTION_NAMES[a]));
      for (const slot of [0, 1] as const) {
        const b = el("button", keyName(s.keys[a][slot]), "small key");
        b.setAttribute("type", "button");
        b.id = `key-${a}-${slot}`;
        b.addEventListener("click", () => this.wait(a, slot, b));
        const td = el("td");
        td.append(b);
        tr.append(td);
      }
      return tr;
    });
    // The rows are made anew: the key just bound keeps the focus, so that a
    // keyboard player goes on from it rather than from the top of the page.
    const focused = document.activeElement instanceof HTMLElement && this.keys.contains(document.activeElement) ? document.activeElement.id : "";
    this.keys.replaceChildren(...rows);
    if (focused) document.getElementById(focused)?.focus({ preventScroll: true });
    this.waiting = null;
  }

  private wait(action: Action, slot: 0 | 1, button: HTMLElement): void {
    this.stopWaiting();
    this.waiting = { action, slot, button };
    setText(button, "press a key…");
    button.classList.add("waiting");
  }

  private stopWaiting(): void {
    const w = this.waiting;
    if (!w) return;
    this.waiting = null;
    this.show(settings()); // the keys as they are
  }

  private key(e: KeyboardEvent): void {
    if (this.root.hidden) return;
    const w = this.waiting;
    if (!w) {
      if (e.code === "Escape") {
        e.preventDefault();
        e.stopImmediatePropagation();
        this.close();
      }
      return;
    }
    e.preventDefault();
    e.stopImmediatePropagation();
    if (e.code === "Escape") {
      this.stopWaiting();
      return;
    }
    const code = e.code === "Backspace" || e.code === "Delete" ? "" : e.code;
    update((s) => {
      // A key does one thing: it leaves any other action it was bound to.
      if (code !== "") {
        for (const a of ACTIONS) {
          for (const k of [0, 1] as const) if (s.keys[a][k] === code) s.keys[a][k] = "";
        }
      }
      s.keys[w.action][w.slot] = code;
    });
  }
}

function gamepadLine(): string {
  const pads = typeof navigator.getGamepads === "function" ? navigator.getGamepads().filter((p) => p && p.connected) : [];
  return pads.length > 0
    ? `Gamepad: ${pads[0]?.id} — d-pad or shoulder buttons turn, a trigger brakes, Y switches the camera.`
    : "Gamepad: none seen yet (press a button on it). The d-pad or shoulder buttons turn, a trigger brakes.";
}

let panel: SettingsPanel | null = null;

/** settingsPanel returns the page's one settings panel, made on first use. */
export function settingsPanel(): SettingsPanel {
  panel ??= new SettingsPanel();
  return panel;
}
