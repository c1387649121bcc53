// The lobby's room list (GET /api/rooms, served by the game server).

import { fetchRecords } from "./api";

export interface RoomSummary {
  name: string;
  players: number;
  bots: number;
  spectators: number;
  /** The server node hosting the room; empty on a single server. */
  node: string;
  /** The map the room plays: its /api/maps id and name. */
  map: string;
  mapName: string;
  /** "teams" or "ffa" (every one for themselves), by the room's current settings set; "" unknown. */
  mode: string;
  /** TEAM_MAX_PLAYERS of that set. */
  teamMax: number;
  /** Players on the largest team now. */
  teamSize: number;
  /** The teams dealt this round (empty in "ffa"). */
  teams: TeamSummary[];
}

/** One team of a room (server: cluster.TeamInfo). */
export interface TeamSummary {
  team: number;
  players: number;
  bots: number;
  score: number;
}

export async function fetchRooms(): Promise<RoomSummary[]> {
  return (await fetchRecords("/api/rooms", "rooms"))
    .map((r) => ({
      name: String(r["name"] ?? ""),
      players: Number(r["players"] ?? 0),
      bots: Number(r["bots"] ?? 0),
      spectators: Number(r["spectators"] ?? 0),
      node: String(r["node"] ?? ""),
      map: String(r["map"] ?? ""),
      mapName: String(r["map_name"] ?? ""),
      mode: String(r["mode"] ?? ""),
      teamMax: Number(r["team_max_players"] ?? 0),
      teamSize: Number(r["team_size"] ?? 0),
      teams: (Array.isArray(r["teams"]) ? (r["teams"] as unknown[]) : [])
        .filter((t): t is Record<string, unknown> => typeof t === "object" && t !== null)
        .map((t) => ({ team: Number(t["team"] ?? 0), players: Number(t["players"] ?? 0), bots: Number(t["bots"] ?? 0), score: Number(t["score"] ?? 0) })),
    }))
    .filter((r) => r.name !== "");
}
