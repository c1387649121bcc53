// window.webtron: a read-only test hook. Other tests rely on these exact
// names; add fields, never rename.
import { wallHeight } from "./core/frame";
import type { Remote } from "./core/remote";
import type { Game } from "./game";
import type { Sound, SoundReport } from "./hud/sound";
import { Perf, type PerfReport } from "./perf";
import { colorCSS } from "./render/palette";
import type { ReplayPage, ReplayReport } from "./replay/page";

export interface StatePlayer {
  id: number;
  name: string;
  x: number; // metres
  y: number;
  dir: number;
  alive: boolean;
  score: number;
  braking: boolean;
}

export interface LagReport {
  id: number;
  predicted_ms: number; // U_you(id) from the published latencies and leads
  measured_ms: number; // median measured U of id's recent events, 0 if none
  samples: number; // events measured_ms is the median of (at most 64)
}

export interface StateReport {
  tick: number;
  you: number;
  players: StatePlayer[];
  lags: LagReport[]; // one per remote player (netcode.md section 5)
  ping_ms: number;
  lead_ms: number;
  events_sent: number;
  events_received: number;
  phase: number; // sim.Phase of the last frame
  round: number;
  /** The mind reader's added lead: a tick plus the input queue's latency, smoothed (netcode.md section 4). */
  mind_reader_ms: number;
  /** The round trip the server measures to this page (twice the published one-way latency). */
  server_rtt_ms: number;
  /** What carries the connection: "webtransport" or "websocket" ("" before it opened). */
  transport: string;
  /** The camera drawn: its mode and its fields of view across and up, degrees. */
  camera: { mode: string; hfov_deg: number; vfov_deg: number; glance: string; horizon: number; pos: number[] };
}

/** What the renderer drew in the last frame (teams, win zone, explosions, holes). */
export interface SceneReport {
  team_mode: boolean;
  team_max: number;
  /** The frame's tick. */
  tick: number;
  /** Per present player: id, team, the colour its cycle and trail are drawn in, how high its walls
   * are drawn (1 standing, sinking to 0 after its death) and the tick it died at. */
  players: { id: number; team: number; color: string; wall_height: number; death_tick: number }[];
  team_scores: number[];
  winner: number;
  zone: { open: boolean; x: number; y: number; radius: number; drawn: boolean };
  /** Explosions in the frame, and how many the renderer drew. */
  explosions: { owner: number; x: number; y: number; radius: number; age: number }[];
  explosions_drawn: number;
  /** Holes the trails' shader cuts: owner, from, to (metres of odometer), as uploaded. */
  holes: { owner: number; from: number; to: number }[];
  /** Name tags and lag-o-meters drawn in the last frame. */
  name_tags: number;
  lag_meters: number;
  /** An Armagetron map's wall pieces the rim was built from (0: the square). */
  map_walls: number;
  /** The map's zones as the frame has them, and whether each was drawn. */
  map_zones: { effect: number; state: number; owner: number; conquered: number; radius: number; drawn: boolean }[];
  /** WebGL draw calls the last frame made (three.js's count). */
  draw_calls: number;
}

export function installHook(current: () => { game: Game | null; remote: Remote | null; sound: Sound; replay: ReplayPage | null }): void {
  const hook = {
    /** state is the last frame the page drew and the last numbers the worker sent (4 a second). */
    state(): StateReport {
      const { game } = current();
      const info = game?.info ?? null;
      const out: StateReport = {
        tick: 0, you: -1, players: [], lags: [],
        ping_ms: info?.pingMs ?? 0, lead_ms: info?.leadMs ?? 0,
        events_sent: info?.eventsSent ?? 0, events_received: info?.eventsReceived ?? 0,
        phase: 0, round: 0, mind_reader_ms: 0, server_rtt_ms: 0, transport: game?.transport ?? "",
        camera: { mode: "", hfov_deg: 0, vfov_deg: 0, glance: "none", horizon: 0, pos: [] },
      };
      if (game) {
        const rig = game.renderer.rig;
        const at = rig.camera.position;
        out.camera = { mode: rig.mode, hfov_deg: rig.hfovDeg, vfov_deg: rig.vfovDeg, glance: rig.glance, horizon: rig.horizon, pos: [at.x, at.y, at.z] };
      }
      if (!game || !game.haveFrame) return out;
      const f = game.frame;
      out.tick = f.tick;
      out.you = f.you;
      out.phase = f.phase;
      out.round = f.round;
      for (const p of info?.players ?? []) {
        if (!p.spectator && p.id === f.you && info) {
          out.mind_reader_ms = info.leadMs - p.leadMs;
          out.server_rtt_ms = 2 * p.latencyMs;
        }
        if (p.spectator || p.id === f.you) continue;
        out.lags.push({ id: p.id, predicted_ms: p.predictedLagMs, measured_ms: p.measuredLagMs, samples: p.measuredLagN });
      }
      for (const c of f.cycles) {
        if (!c.present) continue;
        out.players.push({ id: c.id, name: game.name(c.id), x: c.x, y: c.y, dir: c.dir, alive: c.alive, score: c.score, braking: c.braking });
      }
      return out;
    },
    /** replay is the replay page's state (src/replay/page.ts), null when none plays. */
    replay(): ReplayReport | null {
      return current().replay?.report() ?? null;
    },
    /** scene is what the renderer drew in the last frame. */
    scene(): SceneReport | null {
      const { game } = current();
      if (!game || !game.haveFrame) return null;
      const f = game.frame;
      const r = game.renderer;
      const holes = [];
      for (let k = 0; k < r.trails.holeCount; k++) {
        const d = r.trails.holeData;
        holes.push({ owner: d[k * 4 + 2], from: d[k * 4], to: d[k * 4 + 1] });
      }
      return {
        team_mode: f.teamMode, team_max: f.teamMax,
        tick: f.tick,
        players: f.cycles.filter((c) => c.present).map((c) => ({ id: c.id, team: c.team, color: colorCSS(c.id), wall_height: wallHeight(f, c), death_tick: c.deathTick })),
        team_scores: Array.from({ length: 32 }, (_, t) => f.teamScore(t)),
        winner: f.winner,
        zone: { open: f.zoneOpen, x: f.zoneX, y: f.zoneY, radius: f.zoneRadius, drawn: r.zone.visible },
        explosions: f.explosions.map((e) => ({ ...e })),
        explosions_drawn: r.explosions.shown,
        holes,
        name_tags: game.nameTagsShown,
        lag_meters: r.lag.shown,
        map_walls: r.arena.mapPieces,
        map_zones: f.mapZones.map((z, k) => ({ effect: z.effect, state: z.state, owner: z.owner, conquered: z.conquered, radius: z.radius, drawn: r.mapZones.drawn(k) })),
        draw_calls: r.gl.info.render.calls,
      };
    },
    perf(): PerfReport {
      const { game } = current();
      return game ? game.perf.report() : new Perf().report();
    },
    /** resetPerf starts perf()'s measures afresh, for a window of the test's choosing. */
    resetPerf(): void {
      current().game?.perf.reset();
    },
    /** markFrames makes each frame drawn leave a user-timing mark (Perf.marks) for a trace. */
    markFrames(on: boolean): void {
      const g = current().game;
      if (g) g.perf.marks = on;
    },
    sound(): SoundReport {
      return current().sound.report();
    },
    /** clock sends the worker the page's epoch time and returns how much later the worker's epoch clock read on receipt, ms. */
    async clock(): Promise<number> {
      const { remote } = current();
      if (!remote) return NaN;
      const r = await remote.clock();
      return r.got - r.sent;
    },
  };
  Object.defineProperty(window, "webtron", { value: Object.freeze(hook), configurable: true });
}
