// Practice rooms (POST /api/practice, docs/protocol.md 7.1): the server opens
// a private room against bots of the skill asked for and names it; the page
// then joins it by that name like any room.

/** The prefix of every Practice room's name, and only theirs (docs/protocol.md, POST /api/practice). */
const PRACTICE_PREFIX = "practice-";

/** isPracticeRoom reports whether room is a Practice room. */
export function isPracticeRoom(room: string): boolean {
  return room.startsWith(PRACTICE_PREFIX);
}

/** roomLabel names a room to the player: a Practice room by what it is,
 * not by the 20 random characters of its name. */
export function roomLabel(room: string): string {
  return isPracticeRoom(room) ? "Practice" : room;
}

/** The lobby's Practice levels: Armagetron's AI_IQ of the bots. */
export const PRACTICE_LEVELS: readonly { name: string; skill: number }[] = [
  { name: "Novice", skill: 1 },
  { name: "Easy", skill: 30 },
  { name: "Medium", skill: 60 },
  { name: "Hard", skill: 100 },
];

/** openPractice asks for a Practice room at skill on map (an /api/maps id; "" the default) and returns its name; an Error says why not, in words for the player. */
export async function openPractice(skill: number, map = ""): Promise<string> {
  let resp: Response;
  try {
    resp = await fetch("/api/practice", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(map ? { skill, map } : { skill }),
      cache: "no-store",
    });
  } catch {
    throw new Error("The server could not be reached: try again.");
  }
  if (!resp.ok) {
    const text = (await resp.text().catch(() => "")).trim();
    throw new Error(text ? `No practice room: ${text}` : `No practice room (HTTP ${resp.status}).`);
  }
  const data: unknown = await resp.json();
  const room = typeof data === "object" && data !== null ? (data as Record<string, unknown>)["room"] : undefined;
  if (typeof room !== "string" || room === "") throw new Error("No practice room: the server's answer had no room.");
  return room;
}
