// Touch: tap the left half of the screen to turn left, the right half to turn
// right; hold the brake pad (shown on touch screens) to brake.
import { Press } from "../core/layout";
import type { InputSink } from "./keyboard";

export function attachTouch(el: HTMLElement, brakePad: HTMLElement, sink: InputSink): () => void {
  let brakeTouches = 0;
  const start = (e: TouchEvent) => {
    if (sink.typing()) return;
    e.preventDefault(); // no zoom, no synthetic mouse events
    const at = e.timeStamp;
    for (const t of Array.from(e.changedTouches)) {
      if (t.target instanceof Node && brakePad.contains(t.target)) {
        if (brakeTouches++ === 0) sink.press(Press.BrakeOn, at);
        continue;
      }
      sink.press(t.clientX < window.innerWidth / 2 ? Press.Left : Press.Right, at);
    }
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
