// The table's sounds, made with the Web Audio API (no sound files to load):
// your turn, the clock's last seconds, a burraco, a close. Silent when the
// player muted the room (prefs.js) or before the first click (browsers allow
// sound only after the page has been used).

import { getPrefs } from './prefs.js';

let context = null;

function audio() {
  if (getPrefs().muted) return null;
  const Ctx = window.AudioContext || window.webkitAudioContext;
  if (!Ctx) return null;
  if (!context) {
    try { context = new Ctx(); } catch { return null; }
  }
  if (context.state === 'suspended') context.resume().catch(() => {});
  return context;
}

/** Notes as [frequency Hz, start s, length s]; a soft bell-like envelope each. */
function play(notes, volume = 0.18, type = 'sine') {
  const ctx = audio();
  if (!ctx) return false;
  const now = ctx.currentTime + 0.01;
  for (const [freq, start, length] of notes) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = type;
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(volume, now + start + 0.015);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(now + start);
    osc.stop(now + start + length + 0.05);
  }
  window.burracoSounds = (window.burracoSounds || 0) + 1; // for the tests: how many played
  return true;
}

export const SOUNDS = {
  /** Two rising notes: it is your turn. */
  turn: () => play([[660, 0, 0.18], [880, 0.12, 0.28]]),
  /** A short tick each of the clock's last 10 seconds. */
  tick: () => play([[1200, 0, 0.06]], 0.1, 'square'),
  /** An arpeggio: a burraco (canastra, canasta) is made. */
  burraco: () => play([[523, 0, 0.25], [659, 0.1, 0.25], [784, 0.2, 0.25], [1047, 0.3, 0.45]]),
  /** A fanfare: a line closes (goes out). */
  close: () => play([[392, 0, 0.2], [523, 0.15, 0.2], [659, 0.3, 0.2], [784, 0.45, 0.6]], 0.22, 'triangle'),
};

export function sound(name) {
  const f = SOUNDS[name];
  if (f) f();
}
