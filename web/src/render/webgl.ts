// What this browser lacks to draw the game, asked when the renderer could
// not be made: three.js draws with WebGL 2 (src/render/renderer.ts).

/** webglProblem says what is missing, in words for the player, or "" when
 * a WebGL 2 context can be had (then the renderer failed for another reason). */
export function webglProblem(): string {
  const canvas = document.createElement("canvas");
  let reason = "";
  // The browser's own reason, where it gives one (a blocklisted GPU, WebGL turned off).
  canvas.addEventListener("webglcontextcreationerror", (e) => {
    reason = (e as WebGLContextEvent).statusMessage;
  });
  const gl2 = canvas.getContext("webgl2");
  if (gl2) {
    gl2.getExtension("WEBGL_lose_context")?.loseContext();
    return "";
  }
  const gl1 = document.createElement("canvas").getContext("webgl");
  if (gl1) {
    gl1.getExtension("WEBGL_lose_context")?.loseContext();
    return "This browser has WebGL 1 only; the game needs WebGL 2.";
  }
  return `WebGL is turned off or not supported in this browser${reason ? ` (${reason})` : ""}.`;
}
