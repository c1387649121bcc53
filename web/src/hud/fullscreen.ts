// Fullscreen, from a key, a HUD button or the settings; and on a phone held
// upright, an offer (#fs-offer) to go fullscreen and turn sideways, where
// the arena shows more (the lock to landscape works only in fullscreen, and
// only where the browser allows it).
import { $ } from "./dom";

/** toggleFullscreen enters or leaves fullscreen (a user gesture must call it). */
export function toggleFullscreen(): void {
  if (document.fullscreenElement) {
    void document.exitFullscreen().catch(() => {});
    return;
  }
  void document.documentElement.requestFullscreen?.().catch(() => {});
}

/** goLandscape enters fullscreen and asks for landscape. */
function goLandscape(): void {
  const lock = () => {
    const o = screen.orientation as ScreenOrientation & { lock?: (o: string) => Promise<void> };
    void o.lock?.("landscape").catch(() => {});
  };
  if (document.fullscreenElement) {
    lock();
    return;
  }
  void document.documentElement.requestFullscreen?.().then(lock, () => {});
}

/** offerFullscreen shows the offer on a touch screen held upright, until
 * taken or dismissed (for this game); signal removes its listeners. */
export function offerFullscreen(signal: AbortSignal): void {
  const offer = $("fs-offer");
  const upright = matchMedia("(pointer: coarse) and (orientation: portrait)").matches;
  offer.hidden = !upright || !!document.fullscreenElement || typeof document.documentElement.requestFullscreen !== "function";
  $("fs-go").addEventListener("click", () => {
    offer.hidden = true;
    goLandscape();
  }, { signal });
  $("fs-no").addEventListener("click", () => (offer.hidden = true), { signal });
  signal.addEventListener("abort", () => (offer.hidden = true));
}
