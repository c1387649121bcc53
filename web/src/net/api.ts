// The lobby's JSON lists from the game server (/api/rooms, /api/maps,
// /api/replays): always fresh, and an answer that is not a list is an
// empty one rather than a crash.

/** fetchRecords returns the objects of the JSON list at path; what names it in an error. */
export async function fetchRecords(path: string, what: string): Promise<Record<string, unknown>[]> {
  const resp = await fetch(path, { cache: "no-store" });
  if (!resp.ok) throw new Error(`${what}: HTTP ${resp.status}`);
  const data: unknown = await resp.json();
  if (!Array.isArray(data)) return [];
  return data.filter((r): r is Record<string, unknown> => typeof r === "object" && r !== null);
}
