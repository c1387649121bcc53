// The landing page: name, room list, room name, Play and Spectate.
import { fetchRooms, type RoomSummary } from "../net/rooms";
import { $, el } from "./dom";

export interface JoinRequest {
  name: string;
  room: string;
  spectate: boolean;
}

const NAME_KEY = "webtron.name";
const MAX_NAME = 24; // proto.MaxNameLen (bytes; ASCII names fill it exactly)
const MAX_ROOM = 32;

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
  private readonly msg = $("lobby-msg");
  private timer = 0;

  constructor(private readonly join: (r: JoinRequest) => void) {
    this.name.value = localStorage.getItem(NAME_KEY) ?? "";
    // Play is the form's submit button: a click on it, and Enter in either
    // field, arrive here as one submit event. A click listener on Play as
    // well joined twice, and the second connection replaced the first.
    $<HTMLFormElement>("lobby-form").addEventListener("submit", (e) => {
      e.preventDefault();
      this.submit(false);
    });
    $("spectate").addEventListener("click", () => this.submit(true));
  }

  show(message = ""): void {
    this.root.hidden = false;
    this.msg.textContent = message;
    this.msg.hidden = message === "";
    if (!this.room.value) this.room.value = "arena";
    void this.refresh();
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
    const name = clip(this.name.value, MAX_NAME) || `Player${Math.floor(Math.random() * 900 + 100)}`;
    const room = clip(this.room.value, MAX_ROOM) || "arena";
    localStorage.setItem(NAME_KEY, name);
    this.join({ name, room, spectate });
  }

  private async refresh(): Promise<void> {
    let rooms: RoomSummary[];
    try {
      rooms = await fetchRooms();
    } catch {
      this.list.replaceChildren(el("p", "Room list unavailable: type a room name to create or join it.", "hint"));
      return;
    }
    if (rooms.length === 0) {
      this.list.replaceChildren(el("p", "No rooms yet: name one and press Play to open it.", "hint"));
      return;
    }
    const table = el("table");
    const head = el("tr");
    // Several servers share the lobby: say which one hosts each room.
    const nodes = rooms.some((r) => r.node !== "");
    head.append(el("th", "Room"), el("th", "Players"), el("th", "Bots"), el("th", "Watching"));
    if (nodes) head.append(el("th", "Server"));
    head.append(el("th"));
    table.append(head);
    for (const r of rooms) {
      const tr = el("tr");
      tr.addEventListener("click", () => {
        this.room.value = r.name;
      });
      const go = el("button", "Join", "small");
      go.addEventListener("click", (e) => {
        e.stopPropagation();
        this.room.value = r.name;
        this.submit(false);
      });
      const td = el("td");
      td.append(go);
      tr.append(el("td", r.name, "rname"), el("td", String(r.players)), el("td", String(r.bots)), el("td", String(r.spectators)));
      if (nodes) tr.append(el("td", r.node));
      tr.append(td);
      table.append(tr);
    }
    this.list.replaceChildren(table);
  }
}
