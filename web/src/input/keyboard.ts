// Keyboard: arrows or A/D turn, S / Down / Space brake while held, C camera,
// F3 or backquote debug, Enter chat. Presses go to the core at once with
// their queue latency (netcode.md section 4).
import { Press, type PressKind } from "../core/layout";

export interface InputSink {
  /** A game press, with how long the browser held the event before us. */
  press(kind: PressKind, queueLatencyMs: number): void;
  /** The other keys. */
  command(cmd: "camera" | "debug" | "chat" | "next" | "prev"): void;
  /** True while the chat box has the focus: keys are text then. */
  typing(): boolean;
}

/** queueLatency is how long ago the browser made the event (0..100 ms). */
export function queueLatency(e: Event): number {
  const lat = performance.now() - e.timeStamp;
  // Old browsers stamp events with Date.now(); such a value is meaningless here.
  return lat >= 0 && lat < 1000 ? Math.min(lat, 100) : 0;
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
    const lat = queueLatency(e);
    const turn = TURN[e.code];
    if (turn !== undefined) {
      e.preventDefault();
      if (!e.repeat) sink.press(turn, lat);
      return;
    }
    if (BRAKE.has(e.code)) {
      e.preventDefault();
      if (!e.repeat && !braking) {
        braking = true;
        sink.press(Press.BrakeOn, lat);
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
    }
  };
  const up = (e: KeyboardEvent) => {
    if (BRAKE.has(e.code) && braking) {
      braking = false;
      sink.press(Press.BrakeOff, queueLatency(e));
    }
  };
  // A key released while the window had no focus sends no keyup.
  const blur = () => {
    if (braking) {
      braking = false;
      sink.press(Press.BrakeOff, 0);
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
