// Debug overlay (F3 or backquote): netcode numbers, measured versus predicted
// lag per player, and the client's frame costs.
import type { Info } from "../core/core";
import type { Perf } from "../perf";
import { $, setText } from "./dom";

export class Debug {
  private readonly box = $("debug");

  get visible(): boolean {
    return !this.box.hidden;
  }

  toggle(): void {
    this.box.hidden = !this.box.hidden;
  }

  update(info: Info | null, perf: Perf, fps: number, transport: string): void {
    if (this.box.hidden || !info) return;
    const r = perf.report();
    const f1 = (x: number) => x.toFixed(1);
    const lines = [
      `tick ${info.tick} @ ${info.tickRate} Hz   fps ${f1(fps)}`,
      `update ms p50 ${f1(r.update_ms.p50)} p99 ${f1(r.update_ms.p99)}   render ms p50 ${f1(r.render_ms.p50)} p99 ${f1(r.render_ms.p99)}`,
      `${transport || "connecting"}  ping ${f1(info.pingMs)}  lead ${f1(info.leadMs)}  charity ${info.charityMode} ${f1(info.charityMs)}`,
      `rollbacks ${info.rollbacks}  last depth ${info.lastRollbackDepth} ticks  postponed ${info.postponed}`,
      `events sent ${info.eventsSent}  received ${info.eventsReceived}`,
      "",
      "player            o_i    L_i   U pred  U meas",
    ];
    for (const p of info.players) {
      if (p.spectator) continue;
      lines.push(
        `${p.id.toString().padStart(2)} ${p.name.slice(0, 12).padEnd(12)} ${f1(p.latencyMs).padStart(6)} ${f1(p.leadMs).padStart(6)} ${f1(p.predictedLagMs).padStart(7)} ${f1(p.measuredLagMs).padStart(7)}`,
      );
    }
    setText(this.box, lines.join("\n"));
  }
}
