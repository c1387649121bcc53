// Small DOM helpers shared by the HUD modules.

/** $ returns the element with id, which index.html must have. */
export function $<T extends HTMLElement = HTMLElement>(id: string): T {
  const el = document.getElementById(id);
  if (!el) throw new Error(`webtron: #${id} missing from index.html`);
  return el as T;
}

/** el makes an element with text and a class. */
export function el(tag: string, text = "", cls = ""): HTMLElement {
  const e = document.createElement(tag);
  if (text) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

/** setText writes text only when it changed: layout is not free. */
export function setText(e: HTMLElement, text: string): void {
  if (e.textContent !== text) e.textContent = text;
}

export function fmtMs(ms: number): string {
  return `${Math.round(ms)} ms`;
}
