// "Watch again" and "Copy link" in a live round's summary. The server writes
// a round's replay once the next round has started, so both first find the
// round just watched in /api/replays?room= by its ticks (the summary shows
// while the round's last ticks are on screen), waiting for it if need be.
import { $ } from "../hud/dom";
import { findRound, replayURL } from "./api";

export interface LiveRound {
  room: string;
  /** A tick of the round the summary is about (the frame's, while it shows). */
  tick: number;
  /** The viewer's name: the replay follows them. */
  name: string;
  /** When the page joined the room, ms since the epoch, less a margin for clocks apart. */
  since: number;
}

export interface SummaryActions {
  /** The round on screen, or null when no live round is. */
  current(): LiveRound | null;
  /** Leave the room and play the replay the promise resolves to. */
  watch(id: Promise<string>, follow: string): void;
  /** Tell the viewer something (the chat log). */
  say(text: string): void;
}

/** attachSummaryLinks wires the summary's two buttons (#watchagain, #copylink). */
export function attachSummaryLinks(a: SummaryActions): void {
  $("watchagain").addEventListener("click", () => {
    const r = a.current();
    if (!r) return;
    a.watch(findRound(r.room, r.tick, r.since, () => false), r.name);
  });
  $("copylink").addEventListener("click", () => {
    const r = a.current();
    if (!r) return;
    a.say("Saving the round for its link…");
    // It waits on even if the viewer leaves (watch again): the link is still theirs to paste.
    findRound(r.room, r.tick, r.since, () => false).then(
      (id) => {
        const url = replayURL(id, undefined, r.name);
        $("copylink").dataset.url = url;
        navigator.clipboard.writeText(url).then(
          () => a.say(`Link copied: ${url}`),
          () => a.say(`Link to this round: ${url}`),
        );
      },
      (e: unknown) => a.say(`No link: ${e instanceof Error ? e.message : String(e)}`),
    );
  });
}
