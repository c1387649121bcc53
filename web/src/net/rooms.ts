// The lobby's room list (GET /api/rooms, served by the game server).

export interface RoomSummary {
  name: string;
  players: number;
  bots: number;
  spectators: number;
  /** The server node hosting the room; empty on a single server. */
  node: string;
}

export async function fetchRooms(): Promise<RoomSummary[]> {
  const resp = await fetch("/api/rooms", { cache: "no-store" });
  if (!resp.ok) throw new Error(`rooms: HTTP ${resp.status}`);
  const data: unknown = await resp.json();
  if (!Array.isArray(data)) return [];
  return data
    .filter((r): r is Record<string, unknown> => typeof r === "object" && r !== null)
    .map((r) => ({
      name: String(r["name"] ?? ""),
      players: Number(r["players"] ?? 0),
      bots: Number(r["bots"] ?? 0),
      spectators: Number(r["spectators"] ?? 0),
      node: String(r["node"] ?? ""),
    }))
    .filter((r) => r.name !== "");
}
