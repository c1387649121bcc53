// Keyboard: every action is bound to two keys of the player's choice
// (settings.ts: Webtron's layout by default, Armagetron's as a choice).
// Fixed besides: F3 or backquote the netcode overlay, Esc the summary's
// close or the settings, Page Up/Down (or Q/E when free) the player a
// spectator follows. Presses go to the core at once with the time the key
// went down (event.timeStamp, on this page's clock), from which the core
// measures their queue latency (netcode.md section 4).
import { Press, type PressKind } from "../core/layout";
import type { Glance } from "../render/cameraModes";
import { actionOf } from "../settings";

/** What the keys other than steering, braking and glancing do. */
export type Command = "camera" | "debug" | "chat" | "next" | "prev" | "mute" | "close" | "scores" | "fullscreen";

export interface InputSink {
  /** A game press, with the event's timeStamp (performance.now() time of the key going down). */
  press(kind: PressKind, eventTimeStamp: number): void;
  /** The other keys. */
  command(cmd: Command): void;
  /** A glance key went down (held true) or up. */
  glance(dir: Glance, held: boolean): void;
  /** True while the chat box or a settings field has the focus: keys are text then. */
  typing(): boolean;
}

const GLANCES: Record<string, Glance> = { glanceLeft: "left", glanceRight: "right", glanceBack: "back" };

export function attachKeyboard(sink: InputSink): () => void {
  let braking = "";
  const down = (e: KeyboardEvent) => {
    if (sink.typing() || e.ctrlKey || e.metaKey || e.altKey) return;
    const at = e.timeStamp;
    const action = actionOf(e.code);
    switch (action) {
      case "left":
      case "right":
        e.preventDefault();
        if (!e.repeat) sink.press(action === "left" ? Press.Left : Press.Right, at);
        return;
      case "brake":
        e.preventDefault();
        if (!e.repeat && braking === "") {
          braking = e.code;
          sink.press(Press.BrakeOn, at);
        }
        return;
      case "glanceLeft":
      case "glanceRight":
      case "glanceBack":
        e.preventDefault();
        if (!e.repeat) sink.glance(GLANCES[action], true);
        return;
      case "camera":
      case "chat":
      case "mute":
      case "scores":
      case "fullscreen":
        e.preventDefault();
        if (!e.repeat) sink.command(action);
        return;
    }
    switch (e.code) {
      case "F3":
      case "Backquote":
        e.preventDefault();
        sink.command("debug");
        break;
      case "Escape":
        sink.command("close");
        break;
      case "PageDown":
      case "KeyE":
        sink.command("next");
        break;
      case "PageUp":
      case "KeyQ":
        sink.command("prev");
        break;
    }
  };
  const up = (e: KeyboardEvent) => {
    const action = actionOf(e.code);
    if (action === "brake" && braking === e.code) {
      braking = "";
      sink.press(Press.BrakeOff, e.timeStamp);
    } else if (action === "glanceLeft" || action === "glanceRight" || action === "glanceBack") {
      sink.glance(GLANCES[action], false);
    }
  };
  // A key released while the window had no focus sends no keyup.
  const blur = () => {
    if (braking !== "") {
      braking = "";
      sink.press(Press.BrakeOff, performance.now());
    }
    sink.glance("none", false);
  };
  window.addEventListener("keydown", down);
  window.addEventListener("keyup", up);
  window.addEventListener("blur", blur);
  return () => {
    window.removeEventListener("keydown", down);
    window.removeEventListener("keyup", up);
    window.removeEventListener("blur", blur);
  };
}
