// Card rendering and card helpers, shared by the table and the replay.
//
// Cards are the engine's text form (README "Notation"): rank then suit,
// "5H", "10D", "QS", "2C", and "JK" for the joker. "T" is accepted for 10
// and normalised. Everything is drawn with HTML and CSS: no images.

const SUIT_SYMBOL = { S: '♠', H: '♥', D: '♦', C: '♣' };
const SUIT_NAME = {
  en: { S: 'spades', H: 'hearts', D: 'diamonds', C: 'clubs' },
  it: { S: 'picche', H: 'cuori', D: 'quadri', C: 'fiori' },
  pt: { S: 'espadas', H: 'copas', D: 'ouros', C: 'paus' },
};
const RANK_NAME = {
  en: { A: 'ace', J: 'jack', Q: 'queen', K: 'king' },
  it: { A: 'asso', J: 'jack', Q: 'donna', K: 're' },
  pt: { A: 'ás', J: 'valete', Q: 'dama', K: 'rei' },
};
const OF = { en: 'of', it: 'di', pt: 'de' };
const JOKER = { en: 'joker', it: 'jolly', pt: 'coringa' };
// Rank order for sorting: A counts low in "by suit" (A 2 3 … K, as a hand
// is usually read) and high in "by value" (3 … K A, after the wildcards).
const RANKS = ['A', '2', '3', '4', '5', '6', '7', '8', '9', '10', 'J', 'Q', 'K'];
const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 }; // alternating colours

/** Split a card code into {rank, suit}; the joker has suit "". */
export function parseCard(code) {
  const c = String(code).trim().toUpperCase();
  if (c === 'JK' || c === 'JOKER') return { rank: 'JK', suit: '', code: 'JK' };
  let suit = c.slice(-1);
  const sym = Object.entries(SUIT_SYMBOL).find(([, s]) => s === suit);
  if (sym) suit = sym[0];
  let rank = c.slice(0, -1);
  if (rank === 'T') rank = '10';
  return { rank, suit, code: rank + suit };
}

export const normCard = (code) => parseCard(code).code;
export const isJoker = (code) => parseCard(code).rank === 'JK';
/** Wildcards for sorting: jokers and 2s (a 2 may be natural in a sequence, but it sorts with the wildcards, as in 002). */
export const isWild = (code) => { const { rank } = parseCard(code); return rank === 'JK' || rank === '2'; };
export const isRed = (code) => { const { suit } = parseCard(code); return suit === 'H' || suit === 'D'; };

/** A short, readable form: "5♥", "JK★". */
export function cardText(code) {
  const { rank, suit } = parseCard(code);
  return rank === 'JK' ? 'JK★' : rank + SUIT_SYMBOL[suit];
}

/** The spoken name, for aria-labels: "5 of hearts" / "5 di cuori" / "5 de copas". */
export function cardLabel(code, lang = 'en') {
  const { rank, suit } = parseCard(code);
  if (rank === 'JK') return JOKER[lang] || JOKER.en;
  const r = (RANK_NAME[lang] || RANK_NAME.en)[rank] || rank;
  return `${r} ${OF[lang] || OF.en} ${(SUIT_NAME[lang] || SUIT_NAME.en)[suit]}`;
}

/** Replace card codes in an action text by symbols: "discard 9C" → "discard 9♣". */
export function prettyAction(text) {
  return String(text).replace(/\b(10|[2-9TAJQK])([SHDC])\b|\bJK\b/g, (m) => cardText(m));
}

/**
 * One card face as a <span> (spans so that it may sit inside a <button>).
 * opts.tag: element to use ("button" for hand cards), opts.size: css class
 * "sm" / "lg" picking the size variable.
 */
export function cardEl(code, opts = {}) {
  const { rank, suit, code: norm } = parseCard(code);
  const e = document.createElement(opts.tag || 'span');
  e.className = 'card face' + (opts.size ? ' ' + opts.size : '');
  if (rank === 'JK') e.classList.add('joker');
  else e.classList.add(isRed(norm) ? 'red' : 'black', 'suit-' + suit);
  if (rank === '2') e.classList.add('wild');
  const sym = rank === 'JK' ? '★' : SUIT_SYMBOL[suit];
  const label = rank === 'JK' ? 'JK' : rank;
  e.innerHTML =
    `<span class="corner tl" aria-hidden="true"><span class="r">${label}</span><span class="s">${sym}</span></span>` +
    `<span class="pip" aria-hidden="true">${sym}</span>`;
  if (opts.lang) {
    // A button's name holds the text it shows ("A♦, asso di quadri"), so that a voice
    // user says what they see (WCAG 2.5.3); a picture is named by the words alone.
    const spoken = cardLabel(norm, opts.lang);
    e.setAttribute('aria-label', e.tagName === 'BUTTON' ? `${cardText(norm)}, ${spoken}` : spoken);
    // A label needs a role: a face that is not a button is a picture of the card.
    if (e.tagName !== 'BUTTON') e.setAttribute('role', 'img');
  }
  e.dataset.code = norm;
  return e;
}

/** A card back (CSS pattern). */
export function backEl(opts = {}) {
  const e = document.createElement(opts.tag || 'span');
  e.className = 'card back' + (opts.size ? ' ' + opts.size : '');
  e.setAttribute('aria-hidden', 'true');
  return e;
}

/**
 * Name a control by its content: the words `text`, unseen, before what it shows (hidden
 * from screen readers). A control that shows cards and counts ("9♣ 6") cannot be named
 * by an aria-label holding that visible text, as WCAG 2.5.3 asks; named by content, it
 * has no separate label to disagree with.
 */
export function nameByContent(e, text) {
  e.removeAttribute('aria-label');
  for (const child of e.children) child.setAttribute('aria-hidden', 'true');
  const name = document.createElement('span');
  name.className = 'visually-hidden';
  name.textContent = text;
  e.prepend(name);
}

/** A dashed, semi-transparent placeholder card with a label (new meld, empty pile). */
export function placeholderEl(text, opts = {}) {
  const e = document.createElement(opts.tag || 'span');
  e.className = 'card placeholder' + (opts.size ? ' ' + opts.size : '');
  e.innerHTML = `<span class="ph-plus" aria-hidden="true">${opts.symbol || '+'}</span><span class="ph-text">${text}</span>`;
  return e;
}

/** A fanned row of faces (a meld, an open hand, the pile's history). */
export function fanEl(cards, opts = {}) {
  const e = document.createElement(opts.tag || 'span');
  e.className = 'fan' + (opts.className ? ' ' + opts.className : '');
  for (const c of cards) e.appendChild(cardEl(c, { size: opts.size, lang: opts.lang }));
  return e;
}

/** A fanned stack of backs with a count badge (another player's hand, a pozzetto). */
export function backsEl(count, opts = {}) {
  const e = document.createElement('span');
  e.className = 'backs' + (opts.className ? ' ' + opts.className : '');
  const shown = Math.min(count, opts.max ?? 5);
  for (let i = 0; i < shown; i++) e.appendChild(backEl({ size: opts.size || 'xs' }));
  const badge = document.createElement('span');
  badge.className = 'count';
  badge.textContent = String(count);
  e.appendChild(badge);
  return e;
}

function rankIndex(rank) { return RANKS.indexOf(rank); }

/** 002's first button: by suit (♠ ♥ ♣ ♦), A low, jokers at the end. */
export function sortBySuit(cards, key = (x) => x) {
  const k = (x) => {
    const { rank, suit } = parseCard(key(x));
    if (rank === 'JK') return [9, 0];
    return [SUIT_ORDER[suit], rankIndex(rank)];
  };
  return [...cards].sort((a, b) => cmp(k(a), k(b)));
}

/** 002's second button: by value with the wildcards on the left (jokers, then 2s), then 3 … K, A. */
export function sortByValue(cards, key = (x) => x) {
  const k = (x) => {
    const { rank, suit } = parseCard(key(x));
    if (rank === 'JK') return [0, 0, 0];
    if (rank === '2') return [1, 0, SUIT_ORDER[suit]];
    const v = rank === 'A' ? 14 : rankIndex(rank) + 1;
    return [2, v, SUIT_ORDER[suit]];
  };
  return [...cards].sort((a, b) => cmp(k(a), k(b)));
}

function cmp(a, b) {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return 0;
}

/** Parse an action text into {verb, meld, cards}: "extend 2 8H" → {verb: "extend", meld: 2, cards: ["8H"]}. */
export function parseAction(text) {
  const parts = String(text || '').trim().split(/\s+/).filter(Boolean);
  const verb = (parts.shift() || '').toLowerCase();
  let meld = null;
  if (verb === 'extend' && parts.length) meld = parseInt(parts.shift(), 10);
  return { verb, meld, cards: parts.map(normCard) };
}

/** Count the cards of a list: {"5H": 2, …}. */
export function countCards(cards) {
  const m = new Map();
  for (const c of cards) { const k = normCard(c); m.set(k, (m.get(k) || 0) + 1); }
  return m;
}
