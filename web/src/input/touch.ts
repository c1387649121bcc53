// Touch: tap the left half of the screen to turn left, the right half to turn
// right; hold the brake pad (shown on touch screens) to brake. A tap on a
// control (the Lobby and Sound buttons, the chat box) is that control's.
import { Press } from "../core/layout";
import type { InputSink } from "./keyboard";

export function attachTouch(el: HTMLElement, brakePad: HTMLElement, sink: InputSink): () => void {
  let brakeTouches = 0;
  const start = (e: TouchEvent) => {
    if (sink.typing()) return;
    const at = e.timeStamp;
    let steered = false;
    for (const t of Array.from(e.changedTouches)) {
      if (t.target instanceof Element && t.target.closest("button, input, form, a")) continue;
      steered = true;
      if (t.target instanceof Node && brakePad.contains(t.target)) {
        if (brakeTouches++ === 0) sink.press(Press.BrakeOn, at);
        continue;
      }
      sink.press(t.clientX < window.innerWidth / 2 ? Press.Left : Press.Right, at);
    }
    // No zoom, no synthetic mouse events; a control's tap keeps its click.
    if (steered) e.preventDefault();
  };
  const end = (e: TouchEvent) => {
    for (const t of Array.from(e.changedTouches)) {
      if (t.target instanceof Node && brakePad.contains(t.target) && brakeTouches > 0) {
        if (--brakeTouches === 0) sink.press(Press.BrakeOff, e.timeStamp);
      }
    }
  };
  el.addEventListener("touchstart", start, { passive: false });
  el.addEventListener("touchend", end);
  el.addEventListener("touchcancel", end);
  return () => {
    el.removeEventListener("touchstart", start);
    el.removeEventListener("touchend", end);
    el.removeEventListener("touchcancel", end);
  };
}
