// Keyboard: arrows or A/D turn, S / Down / Space brake while held, C camera,
// F3 or backquote debug, Enter chat, M mute, Escape closes the summary. Presses go to the core at once with
// the time the key went down (event.timeStamp, on this page's clock), from
// which the core measures their queue latency (netcode.md section 4).
import { Press, type PressKind } from "../core/layout";

/** What the keys other than steering and braking do. */
export type Command = "camera" | "debug" | "chat" | "next" | "prev" | "mute" | "close";

export interface InputSink {
  /** A game press, with the event's timeStamp (performance.now() time of the key going down). */
  press(kind: PressKind, eventTimeStamp: number): void;
  /** The other keys. */
  command(cmd: Command): void;
  /** True while the chat box has the focus: keys are text then. */
  typing(): boolean;
}

const TURN: Record<string, PressKind> = {
  ArrowLeft: Press.Left,
  KeyA: Press.Left,
  ArrowRight: Press.Right,
  KeyD: Press.Right,
};
const BRAKE = new Set(["KeyS", "ArrowDown", "Space"]);

export function attachKeyboard(sink: InputSink): () => void {
  let braking = false;
  const down = (e: KeyboardEvent) => {
    if (sink.typing() || e.ctrlKey || e.metaKey || e.altKey) return;
    const at = e.timeStamp;
    const turn = TURN[e.code];
    if (turn !== undefined) {
      e.preventDefault();
      if (!e.repeat) sink.press(turn, at);
      return;
    }
    if (BRAKE.has(e.code)) {
      e.preventDefault();
      if (!e.repeat && !braking) {
        braking = true;
        sink.press(Press.BrakeOn, at);
      }
      return;
    }
    switch (e.code) {
      case "KeyC":
        sink.command("camera");
        break;
      case "F3":
      case "Backquote":
        e.preventDefault();
        sink.command("debug");
        break;
      case "Enter":
      case "KeyT":
        e.preventDefault();
        sink.command("chat");
        break;
      case "PageDown":
      case "KeyE":
        sink.command("next");
        break;
      case "PageUp":
      case "KeyQ":
        sink.command("prev");
        break;
      case "KeyM":
        sink.command("mute");
        break;
      case "Escape":
        sink.command("close");
        break;
    }
  };
  const up = (e: KeyboardEvent) => {
    if (BRAKE.has(e.code) && braking) {
      braking = false;
      sink.press(Press.BrakeOff, e.timeStamp);
    }
  };
  // A key released while the window had no focus sends no keyup.
  const blur = () => {
    if (braking) {
      braking = false;
      sink.press(Press.BrakeOff, performance.now());
    }
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
