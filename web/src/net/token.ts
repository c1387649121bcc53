// Reconnect tokens, kept per browser (localStorage), by room and name: a
// reload, a reconnect or a second tab of the same name reclaims the same
// player. The server gives the seat to the newest connection with the token
// and closes the older one (Close.Replaced); the entry also names the page
// that holds the seat, so that a page whose seat another tab took says so
// and does not take it back (heldElsewhere, onHeldElsewhere).

/** This page's own id: a reload is a new page, as far as the seat goes. */
const PAGE = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;

interface Entry {
  token: string; // base64
  page: string; // the page that last joined with it
}

function key(room: string, name: string): string {
  return `webtron.token:${room}:${name.toLowerCase()}`;
}

function read(k: string): Entry | null {
  try {
    const e = JSON.parse(localStorage.getItem(k) ?? "null") as Entry | null;
    return e && typeof e.token === "string" && typeof e.page === "string" ? e : null;
  } catch {
    return null;
  }
}

export function loadToken(room: string, name: string): Uint8Array | null {
  const e = read(key(room, name));
  if (!e) return null;
  try {
    return Uint8Array.from(atob(e.token), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** saveToken keeps the token the server welcomed this page with, and names this page as the one holding the seat. */
export function saveToken(room: string, name: string, token: Uint8Array): void {
  const e: Entry = { token: btoa(String.fromCharCode(...token)), page: PAGE };
  localStorage.setItem(key(room, name), JSON.stringify(e));
}

export function clearToken(room: string, name: string): void {
  localStorage.removeItem(key(room, name));
}

/** heldElsewhere reports whether another page of this browser joined with the token since this one did. */
export function heldElsewhere(room: string, name: string): boolean {
  const e = read(key(room, name));
  return e !== null && e.page !== PAGE;
}

/** onHeldElsewhere calls taken when another page of this browser joins with the token; it returns the way to stop listening. */
export function onHeldElsewhere(room: string, name: string, taken: () => void): () => void {
  const k = key(room, name);
  const listen = (ev: StorageEvent) => {
    if (ev.storageArea === localStorage && ev.key === k && heldElsewhere(room, name)) taken();
  };
  window.addEventListener("storage", listen);
  return () => window.removeEventListener("storage", listen);
}
