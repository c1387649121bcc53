// Reconnect tokens, kept per tab (sessionStorage): a reload or a reconnect
// reclaims the same player, while a second tab joins as a new one.

function key(room: string, name: string): string {
  return `webtron.token:${room}:${name}`;
}

export function loadToken(room: string, name: string): Uint8Array | null {
  const s = sessionStorage.getItem(key(room, name));
  if (!s) return null;
  try {
    return Uint8Array.from(atob(s), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

export function saveToken(room: string, name: string, token: Uint8Array): void {
  sessionStorage.setItem(key(room, name), btoa(String.fromCharCode(...token)));
}

export function clearToken(room: string, name: string): void {
  sessionStorage.removeItem(key(room, name));
}
