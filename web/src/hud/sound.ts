// Sound, made with Web Audio (no asset files): an engine hum that follows the
// speed of the cycle the camera is on, a click when it turns, a crash when it
// dies (rivals' crashes quieter). M mutes; the choice is remembered.
import type { Frame } from "../core/frame";
import { MAX_PLAYERS, Phase } from "../core/layout";

const MUTE_KEY = "webtron.mute";
const HUM_GAIN = 0.06;

/** SoundReport is window.webtron.sound(), for tests. */
export interface SoundReport {
  muted: boolean;
  /** The settings' volume, 0..1. */
  volume: number;
  /** AudioContext state, or "none" before the first gesture made one. */
  context: string;
  hum_hz: number;
  clicks: number;
  crashes: number;
}

export class Sound {
  private ctx: AudioContext | null = null;
  private master: GainNode | null = null;
  private hum: OscillatorNode | null = null;
  private humGain: GainNode | null = null;
  private noise: AudioBuffer | null = null;
  private muted = localStorage.getItem(MUTE_KEY) === "1";
  /** The volume set in the settings, 0..1; muting sets the sound to 0 without changing it. */
  private volume = 1;
  private lastDir = -1;
  private lastFollow = -1;
  private alive: boolean[] = new Array<boolean>(MAX_PLAYERS).fill(false);
  private round = -1;
  private clicks = 0;
  private crashes = 0;
  private humHz = 0;

  /** unlock makes (or resumes) the audio context: browsers allow it only in a user gesture. */
  unlock(): void {
    if (!this.ctx) {
      const AC = window.AudioContext;
      if (!AC) return;
      const ctx = new AC();
      this.ctx = ctx;
      this.master = ctx.createGain();
      this.master.gain.value = this.level();
      this.master.connect(ctx.destination);
      const lp = ctx.createBiquadFilter();
      lp.type = "lowpass";
      lp.frequency.value = 600;
      this.humGain = ctx.createGain();
      this.humGain.gain.value = 0;
      this.hum = ctx.createOscillator();
      this.hum.type = "sawtooth";
      this.hum.frequency.value = 60;
      this.hum.connect(lp).connect(this.humGain).connect(this.master);
      this.hum.start();
      this.noise = ctx.createBuffer(1, ctx.sampleRate / 2, ctx.sampleRate);
      const d = this.noise.getChannelData(0);
      for (let i = 0; i < d.length; i++) d[i] = Math.random() * 2 - 1;
    }
    if (this.ctx.state === "suspended") void this.ctx.resume();
  }

  get isMuted(): boolean {
    return this.muted;
  }

  toggleMute(): void {
    this.muted = !this.muted;
    localStorage.setItem(MUTE_KEY, this.muted ? "1" : "0");
    this.apply();
  }

  /** setVolume sets the volume, 0..1 (the settings' slider). */
  setVolume(v: number): void {
    this.volume = Math.min(1, Math.max(0, v));
    this.apply();
  }

  private level(): number {
    return this.muted ? 0 : this.volume;
  }

  private apply(): void {
    if (this.master && this.ctx) this.master.gain.setTargetAtTime(this.level(), this.ctx.currentTime, 0.02);
  }

  /** frame follows cycle follow: hum at its speed, click on its turns, crashes of everyone. */
  frame(f: Frame, follow: number): void {
    const ctx = this.ctx;
    const c = follow >= 0 ? f.cycles[follow] : null;
    const riding = c !== null && c.alive && f.phase === Phase.Play;
    if (c && follow === this.lastFollow && riding && this.lastDir >= 0 && c.dir !== this.lastDir) this.click();
    this.lastFollow = follow;
    this.lastDir = c && c.alive ? c.dir : -1;
    const fresh = f.round !== this.round;
    this.round = f.round;
    for (const k of f.cycles) {
      if (!fresh && this.alive[k.id] && !k.alive && k.inRound) this.crash(k.id === follow ? 1 : 0.25);
      this.alive[k.id] = k.alive;
    }
    this.humHz = riding && c ? 35 + 2.2 * c.speed : 0;
    if (!ctx || !this.hum || !this.humGain) return;
    const t = ctx.currentTime;
    if (riding) this.hum.frequency.setTargetAtTime(this.humHz, t, 0.05);
    this.humGain.gain.setTargetAtTime(riding ? HUM_GAIN : 0, t, 0.08);
  }

  private click(): void {
    this.clicks++;
    const ctx = this.ctx;
    if (!ctx || !this.master) return;
    const t = ctx.currentTime;
    const osc = ctx.createOscillator();
    const g = ctx.createGain();
    osc.type = "square";
    osc.frequency.value = 1400;
    g.gain.setValueAtTime(0.08, t);
    g.gain.exponentialRampToValueAtTime(0.0001, t + 0.04);
    osc.connect(g).connect(this.master);
    osc.start(t);
    osc.stop(t + 0.05);
  }

  private crash(level: number): void {
    this.crashes++;
    const ctx = this.ctx;
    if (!ctx || !this.master || !this.noise) return;
    const t = ctx.currentTime;
    const src = ctx.createBufferSource();
    src.buffer = this.noise;
    const lp = ctx.createBiquadFilter();
    lp.type = "lowpass";
    lp.frequency.setValueAtTime(3000, t);
    lp.frequency.exponentialRampToValueAtTime(120, t + 0.45);
    const g = ctx.createGain();
    g.gain.setValueAtTime(0.5 * level, t);
    g.gain.exponentialRampToValueAtTime(0.0001, t + 0.5);
    src.connect(lp).connect(g).connect(this.master);
    src.start(t);
  }

  report(): SoundReport {
    return { muted: this.muted, volume: this.volume, context: this.ctx ? this.ctx.state : "none", hum_hz: Math.round(this.humHz), clicks: this.clicks, crashes: this.crashes };
  }
}
