// The landing page: name, room list, room name and the map of a room one
// opens, Play and Spectate, and Practice against bots of a chosen skill in a
// room of one's own.
import { fetchMaps, type MapSummary, mapDetails, mapLabel } from "../net/maps";
import { openPractice, PRACTICE_LEVELS } from "../net/practice";
import { fetchRooms, type RoomSummary } from "../net/rooms";
import { teamCSS, teamName } from "../render/palette";
import { $, el } from "./dom";
import { settingsPanel } from "./settingsPanel";

export interface JoinRequest {
  name: string;
  room: string;
  spectate: boolean;
  /** The map of the room if this join opens it (an /api/maps id); "" the server's default. */
  map: string;
}

const NAME_KEY = "webtron.name";
/** The Practice level last chosen (its skill); Novice until then. */
const SKILL_KEY = "webtron.practiceSkill";
/** The map last chosen (its /api/maps id). */
const MAP_KEY = "webtron.map";
/** proto.MaxNameLen (bytes; ASCII names fill it exactly). */
export const MAX_NAME = 24;
export const MAX_ROOM = 32;
/** proto.MaxMapLen. */
export const MAX_MAP = 128;

/** randomName is the name of a player who typed none. */
export function randomName(): string {
  return `Player${Math.floor(Math.random() * 900 + 100)}`;
}

/** clip cuts s to at most max UTF-8 bytes, on a character boundary. */
export function clip(s: string, max: number): string {
  const enc = new TextEncoder();
  let out = "";
  for (const ch of s.trim()) {
    if (enc.encode(out + ch).length > max) break;
    out += ch;
  }
  return out;
}

export class Lobby {
  private readonly root = $("lobby");
  private readonly name = $<HTMLInputElement>("name");
  private readonly room = $<HTMLInputElement>("room");
  private readonly list = $("rooms");
  private readonly mapSelect = $<HTMLSelectElement>("map");
  private readonly mapNote = $("map-note");
  /** The server's maps (the default first), once loaded. */
  private maps: MapSummary[] = [];
  /** The rooms of the last refresh, which say whether the Room field names an open room. */
  private rooms: RoomSummary[] = [];
  private readonly msg = $("lobby-msg");
  private timer = 0;
  /** Rows of the room list by room name, updated in place: a list rebuilt
   * under the pointer would swallow a click that began on the old row. */
  private readonly rows = new Map<string, { tr: HTMLElement; cells: HTMLElement[] }>();
  private table: HTMLElement | null = null;
  /** A Practice room has been asked for and not answered yet. */
  private asking = false;
  /** The name of a player who types none, shown in the empty field: what it
   * showed before ("Flynn", a bot's name) was not the name they got. */
  private readonly fallbackName = randomName();

  constructor(private readonly join: (r: JoinRequest) => void) {
    this.name.value = localStorage.getItem(NAME_KEY) ?? "";
    this.name.placeholder = this.fallbackName;
    // Play is the form's submit button: a click on it, and Enter in either
    // field, arrive here as one submit event. A click listener on Play as
    // well joined twice, and the second connection replaced the first.
    $<HTMLFormElement>("lobby-form").addEventListener("submit", (e) => {
      e.preventDefault();
      // Enter on a Practice level means Practice at it, not Play in the
      // public room the Room field names.
      const at = document.activeElement;
      if (at instanceof HTMLInputElement && at.name === "practice-skill") void this.practice();
      else this.submit(false);
    });
    $("spectate").addEventListener("click", () => this.submit(true));
    $("open-settings").addEventListener("click", () => settingsPanel().openPanel());
    // How to play says Esc opens the settings: here as in a room. (Open, the
    // panel takes Esc itself, in the capture phase, to close.)
    window.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && !e.repeat && !this.root.hidden && !settingsPanel().open) settingsPanel().openPanel();
    });
    this.levels();
    $("practice").addEventListener("click", () => void this.practice());
    this.mapSelect.addEventListener("change", () => localStorage.setItem(MAP_KEY, this.mapSelect.value));
    this.room.addEventListener("input", () => this.noteMap());
  }

  /** loadMaps fills the map choice from the server's list, the last choice selected; once. */
  private async loadMaps(): Promise<void> {
    if (this.maps.length > 0) return;
    try {
      this.maps = await fetchMaps();
    } catch {
      this.maps = [];
    }
    const options = this.maps.map((m) => {
      const o = document.createElement("option");
      o.value = m.id;
      o.textContent = mapLabel(m);
      o.title = mapDetails(m);
      return o;
    });
    if (options.length === 0) {
      const o = document.createElement("option");
      o.value = "";
      o.textContent = "the server's default";
      options.push(o);
    }
    this.mapSelect.replaceChildren(...options);
    const saved = localStorage.getItem(MAP_KEY);
    if (saved && this.maps.some((m) => m.id === saved)) this.mapSelect.value = saved;
    this.noteMap();
  }

  /** chosenMap is the map to ask for: "" for the server's default. */
  private chosenMap(): string {
    const m = this.maps.find((m) => m.id === this.mapSelect.value);
    return m && !m.isDefault ? m.id : "";
  }

  /** mapName names a room's map: its name, or the list's name for its id. */
  private mapName(r: RoomSummary): string {
    return r.mapName || this.maps.find((m) => m.id === r.map)?.name || r.map;
  }

  /** noteMap says so when the Room field names an open room: it keeps its own map, whatever the choice. */
  private noteMap(): void {
    const name = clip(this.room.value, MAX_ROOM) || "arena";
    const open = this.rooms.find((r) => r.name === name);
    this.mapSelect.disabled = open !== undefined;
    const text = open ? `${open.name} is open${open.map ? ` on ${this.mapName(open)}` : ""}: you join it as it is.` : "";
    this.mapNote.hidden = text === "";
    if (this.mapNote.textContent !== text) this.mapNote.textContent = text;
  }

  /** levels fills the Practice selector, the last choice checked. */
  private levels(): void {
    const saved = Number(localStorage.getItem(SKILL_KEY));
    const chosen = PRACTICE_LEVELS.some((l) => l.skill === saved) ? saved : PRACTICE_LEVELS[0].skill;
    const group = $("practice-skill");
    for (const l of PRACTICE_LEVELS) {
      const input = document.createElement("input");
      input.type = "radio";
      input.name = "practice-skill";
      input.id = `practice-skill-${l.skill}`;
      input.value = String(l.skill);
      input.checked = l.skill === chosen;
      input.addEventListener("change", () => localStorage.setItem(SKILL_KEY, input.value));
      const label = document.createElement("label");
      label.htmlFor = input.id;
      label.title = `Bots of skill ${l.skill} of 100`;
      label.append(input, l.name);
      group.append(label);
    }
  }

  /** practice asks the server for a Practice room at the chosen level and joins it. */
  private async practice(): Promise<void> {
    if (this.root.hidden || this.asking) return;
    const checked = document.querySelector<HTMLInputElement>('input[name="practice-skill"]:checked');
    const skill = Number(checked?.value ?? PRACTICE_LEVELS[0].skill);
    const name = clip(this.name.value, MAX_NAME) || this.fallbackName;
    localStorage.setItem(NAME_KEY, name);
    this.asking = true;
    let room: string;
    try {
      room = await openPractice(skill, this.chosenMap());
    } catch (e) {
      this.show(e instanceof Error ? e.message : String(e));
      return;
    } finally {
      this.asking = false;
    }
    if (!this.root.hidden) this.join({ name, room, spectate: false, map: "" });
  }

  show(message = ""): void {
    this.msg.textContent = message;
    this.msg.hidden = message === "";
    if (!this.root.hidden) return;
    this.root.hidden = false;
    if (!this.room.value) this.room.value = "arena";
    void this.loadMaps();
    void this.refresh();
    clearInterval(this.timer);
    this.timer = window.setInterval(() => void this.refresh(), 3000);
    (this.name.value ? this.room : this.name).focus();
  }

  hide(): void {
    this.root.hidden = true;
    clearInterval(this.timer);
  }

  private submit(spectate: boolean): void {
    // Once hidden, the lobby has handed a join over: a second event from the
    // same gesture (a double click, Enter held down) must not start another.
    if (this.root.hidden) return;
    const name = clip(this.name.value, MAX_NAME) || this.fallbackName;
    const room = clip(this.room.value, MAX_ROOM) || "arena";
    localStorage.setItem(NAME_KEY, name);
    this.join({ name, room, spectate, map: this.chosenMap() });
  }

  private async refresh(): Promise<void> {
    let rooms: RoomSummary[];
    try {
      rooms = await fetchRooms();
    } catch {
      this.rooms = [];
      this.noteMap();
      this.hint("Room list unavailable: type a room name to create or join it.");
      return;
    }
    this.rooms = rooms;
    this.noteMap();
    if (rooms.length === 0) {
      this.hint("No rooms yet: name one and press Play to open it.");
      return;
    }
    if (!this.table) {
      this.table = el("table");
      const head = el("tr");
      head.append(el("th", "Room"), el("th", "Map"), el("th", "Players"), el("th", "Bots"), el("th", "Watching", "watch"), el("th", "Mode"), el("th", "Server", "node"), el("th"));
      this.table.append(head);
      this.list.replaceChildren(this.table);
    }
    const seen = new Set<string>();
    let prev: Element | null = this.table.firstElementChild; // the heading
    for (const r of rooms) {
      seen.add(r.name);
      const row = this.rows.get(r.name) ?? this.addRow(r.name);
      const values = [this.mapName(r), String(r.players), String(r.bots), String(r.spectators), "", r.node];
      values.forEach((v, i) => {
        if (i !== MODE && row.cells[i].textContent !== v) row.cells[i].textContent = v;
      });
      showMode(row.cells[MODE], r);
      row.cells[MAP].title = r.map;
      // The server's order (by name); a row already in place is not moved.
      if (row.tr.previousElementSibling !== prev) prev?.after(row.tr);
      prev = row.tr;
    }
    for (const [name, row] of this.rows) {
      if (!seen.has(name)) {
        row.tr.remove();
        this.rows.delete(name);
      }
    }
    // Several servers share the lobby: the Server column says which one
    // hosts each room; a single server has no such column.
    const nodes = rooms.some((r) => r.node !== "");
    for (const c of this.table.querySelectorAll<HTMLElement>(".node")) c.hidden = !nodes;
  }

  private addRow(name: string): { tr: HTMLElement; cells: HTMLElement[] } {
    const tr = el("tr");
    tr.dataset.room = name;
    tr.addEventListener("click", () => {
      this.room.value = name;
      this.noteMap();
    });
    const go = el("button", "Join", "small join");
    go.setAttribute("type", "button");
    // A list of buttons all called "Join" says nothing read out of its row.
    go.setAttribute("aria-label", `Join ${name}`);
    go.addEventListener("click", (e) => {
      e.stopPropagation();
      this.room.value = name;
      this.submit(false);
    });
    const cells = [el("td", "", "map"), el("td"), el("td"), el("td", "", "watch"), el("td", "", "mode"), el("td", "", "node")];
    const td = el("td");
    td.append(go);
    tr.append(el("td", name, "rname"), ...cells, td);
    const row = { tr, cells };
    this.rows.set(name, row);
    return row;
  }

  private hint(text: string): void {
    this.table = null;
    this.rows.clear();
    this.list.replaceChildren(el("p", text, "hint"));
  }
}

/** The Map and Mode cells' indices among a row's cells. */
const MAP = 0;
const MODE = 4;

/**
 * showMode fills a room's Mode cell: "FFA", or "Teams 3v3" with a chip per
 * team in its colour (its players, and its score as a tooltip), redrawn only
 * when the text changes.
 */
function showMode(td: HTMLElement, r: RoomSummary): void {
  const key = JSON.stringify([r.mode, r.teamMax, r.teams]);
  if (td.dataset.key === key) return;
  td.dataset.key = key;
  td.dataset.mode = r.mode;
  td.title = r.mode === "teams" ? `teams of up to ${r.teamMax}` : "";
  if (r.mode !== "teams") {
    td.replaceChildren(r.mode === "ffa" ? "FFA" : "");
    return;
  }
  const sizes = r.teams.map((t) => t.players + t.bots);
  const out: (string | HTMLElement)[] = [`Teams ${sizes.length > 0 ? sizes.join("v") : `of ${r.teamMax}`}`];
  for (const t of r.teams) {
    const chip = el("span", ` ${teamName(t.team)} ${t.players}+${t.bots}`, "team");
    chip.dataset.team = String(t.team);
    chip.style.color = teamCSS(t.team);
    chip.title = `${teamName(t.team)} team: ${t.players} ${t.players === 1 ? "player" : "players"}, ${t.bots} ${t.bots === 1 ? "bot" : "bots"}, score ${t.score}`;
    out.push(chip);
  }
  td.replaceChildren(...out);
}
