// The player's settings for this browser: card size, a four-colour deck, sound.
//
// Kept in localStorage ("burraco.prefs") and applied as classes on <body>, so the
// stylesheet does the rest: body.cards-small / body.cards-large scale every card,
// body.four-colour paints diamonds blue and clubs green.

const KEY = 'burraco.prefs';
const DEFAULTS = { cards: 'medium', fourColour: false, muted: false };
export const CARD_SIZES = ['small', 'medium', 'large'];

export function loadPrefs() {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) || '{}');
    const prefs = { ...DEFAULTS, ...(saved && typeof saved === 'object' ? saved : {}) };
    if (!CARD_SIZES.includes(prefs.cards)) prefs.cards = DEFAULTS.cards;
    return prefs;
  } catch {
    return { ...DEFAULTS };
  }
}

let prefs = loadPrefs();
const listeners = [];

export const getPrefs = () => prefs;

export function setPref(name, value) {
  prefs = { ...prefs, [name]: value };
  try { localStorage.setItem(KEY, JSON.stringify(prefs)); } catch { /* storage may be off */ }
  applyPrefs();
  for (const cb of listeners) cb(prefs);
}

export function onPrefsChange(cb) { listeners.push(cb); }

/** Put the settings on <body> as classes. */
export function applyPrefs() {
  const body = document.body;
  for (const size of CARD_SIZES) body.classList.toggle(`cards-${size}`, prefs.cards === size);
  body.classList.toggle('four-colour', Boolean(prefs.fourColour));
  body.classList.toggle('muted', Boolean(prefs.muted));
}

/** The system asks for less motion: no card flies, nothing pulses. */
export function reducedMotion() {
  return Boolean(window.matchMedia && window.matchMedia('(prefers-reduced-motion: reduce)').matches);
}
