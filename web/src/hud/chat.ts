// Chat: Enter (or T) opens the input, Enter sends, Escape cancels. Lines fade
// out after a while.
import { colorCSS } from "../render/palette";
import { $, el } from "./dom";

const KEEP_MS = 12000;
const MAX_LINES = 8;

export class Chat {
  private readonly log = $("chatlog");
  private readonly form = $<HTMLFormElement>("chatform");
  private readonly input = $<HTMLInputElement>("chatinput");
  private armed = false;

  /** signal removes the listeners when the game ends: the elements outlive it. */
  constructor(send: (text: string) => void, signal: AbortSignal) {
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      // Only an Enter typed in the box sends: the Enter that opened it can
      // reach the box as well (its character event follows the focus).
      if (!this.armed) return;
      this.armed = false;
      const text = this.input.value.trim();
      if (text) send(text);
      this.close();
    }, { signal });
    this.input.addEventListener("keydown", (e) => {
      e.stopPropagation(); // the game keys stay quiet while typing
      if (e.key === "Escape") this.close();
      if (e.key === "Enter") this.armed = true;
    }, { signal });
    this.input.addEventListener("blur", () => this.close(), { signal });
    signal.addEventListener("abort", () => {
      this.close();
      this.log.replaceChildren();
    });
  }

  get open(): boolean {
    return !this.form.hidden;
  }

  toggle(): void {
    this.armed = false;
    this.form.hidden = false;
    this.input.value = "";
    this.input.focus();
  }

  private close(): void {
    this.form.hidden = true;
    this.input.blur();
  }

  /** add shows a line; from < 0 is a system line. */
  add(from: number, name: string, text: string): void {
    const line = el("div", "", from < 0 ? "line system" : "line");
    if (from >= 0) {
      const who = el("span", name + ": ", "who");
      who.style.color = from < 32 ? colorCSS(from) : "#aaa";
      line.append(who);
    }
    line.append(document.createTextNode(text));
    this.log.append(line);
    while (this.log.childElementCount > MAX_LINES) this.log.firstElementChild?.remove();
    window.setTimeout(() => line.classList.add("old"), KEEP_MS);
  }
}
