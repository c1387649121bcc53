// The cameras a player can choose and their settings, without three.js:
// the settings and the lobby read them, and the lobby must not wait for the
// 3D engine (issue 25, first visit). camera.ts moves the camera.

export type CameraMode = "chase" | "smart" | "first" | "top" | "free";

/** The modes C cycles through; "free" only for a spectator (CameraRig.toggle's argument). */
export const CAMERA_MODES: readonly CameraMode[] = ["chase", "top", "smart", "first", "free"];

/** What the player sets: the mode, the vertical field of view on a wide
 * screen, and the chase camera's height and distance behind. */
export interface CameraSettings {
  mode: CameraMode;
  fovDeg: number;
  height: number;
  distance: number;
}

export const DEFAULT_CAMERA: CameraSettings = { mode: "chase", fovDeg: 70, height: 3.6, distance: 8 };

/** On a screen taller than wide the view shows at least this much across. */
export const MIN_PORTRAIT_HFOV_DEG = 78;

/** Glances: the view turns this way while the key is held. */
export type Glance = "none" | "left" | "right" | "back";
