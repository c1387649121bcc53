// The maps a new room may play (GET /api/maps, served by the game server):
// its default first, then the stock Armagetron maps the operator offers.

import { fetchRecords } from "./api";

export interface MapSummary {
  /** What the join sends (the Hello's map): a resource path, or "builtin". */
  id: string;
  name: string;
  /** The server's default, which a join without a map plays. */
  isDefault: boolean;
  spawns: number;
  zones: number;
  /** The walls' extent in map units (metres at the default arena size); 0 for the built-in square. */
  width: number;
  height: number;
}

export async function fetchMaps(): Promise<MapSummary[]> {
  return (await fetchRecords("/api/maps", "maps"))
    .map((m) => ({
      id: String(m["id"] ?? ""),
      name: String(m["name"] ?? ""),
      isDefault: m["default"] === true,
      spawns: Number(m["spawns"] ?? 0),
      zones: Number(m["zones"] ?? 0),
      width: Number(m["width"] ?? 0),
      height: Number(m["height"] ?? 0),
    }))
    .filter((m) => m.id !== "");
}

/** mapLabel is a map's option text: its name, and whether it is the default. */
export function mapLabel(m: MapSummary): string {
  return m.isDefault ? `${m.name} (default)` : m.name;
}

/** mapDetails is what else the list says of a map: its size, spawn points and zones. */
export function mapDetails(m: MapSummary): string {
  const parts: string[] = [];
  if (m.width > 0 && m.height > 0) parts.push(`${m.width}×${m.height}`);
  if (m.spawns > 0) parts.push(`${m.spawns} spawn points`);
  if (m.zones > 0) parts.push(`${m.zones} zones`);
  return parts.join(", ");
}
