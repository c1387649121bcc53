// Gamepads, through the Gamepad API's standard mapping: the d-pad's left
// and right and the shoulder buttons turn, either trigger brakes while
// held, Y (the top face button) switches the camera. The page polls once a
// frame (the API has no events for buttons); a press is stamped with the
// time of the poll that saw it, which is when the page learnt of it.
import { Press } from "../core/layout";
import type { InputSink } from "./keyboard";

/** Standard-mapping button indices. */
const LB = 4, RB = 5, LT = 6, RT = 7, LEFT = 14, RIGHT = 15, Y = 3;
/** A trigger counts as held from this far down. */
const TRIGGER = 0.4;

export class Gamepads {
  /** Each pad's buttons as last seen (by pad index), to see edges. */
  private readonly was = new Map<number, boolean[]>();
  private braking = false;
  /** The id of the last pad seen (the settings panel shows it), "" none. */
  last = "";

  constructor(private readonly sink: InputSink) {}

  /** poll reads every pad and sends the presses since the last poll. */
  poll(now: number): void {
    const pads = typeof navigator.getGamepads === "function" ? navigator.getGamepads() : [];
    let brake = false;
    for (const pad of pads) {
      if (!pad || !pad.connected) continue;
      this.last = pad.id;
      const held = pad.buttons.map((b, i) => (i === LT || i === RT ? b.value >= TRIGGER || b.pressed : b.pressed));
      const was = this.was.get(pad.index) ?? [];
      const pressed = (i: number) => held[i] === true && was[i] !== true;
      if (pressed(LEFT) || pressed(LB)) this.sink.press(Press.Left, now);
      if (pressed(RIGHT) || pressed(RB)) this.sink.press(Press.Right, now);
      if (pressed(Y)) this.sink.command("camera");
      brake = brake || held[LT] === true || held[RT] === true;
      this.was.set(pad.index, held);
    }
    if (brake !== this.braking) {
      this.braking = brake;
      this.sink.press(brake ? Press.BrakeOn : Press.BrakeOff, now);
    }
  }
}
