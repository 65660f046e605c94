// Small helpers shared by the lobby, the table and the replay.

import { t } from './i18n.js';

/** Build an element: el('button', {class: 'x', onclick: f, 'aria-label': '…'}, child, 'text'). */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k === 'dataset') Object.assign(e.dataset, v);
    else if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (v === true) e.setAttribute(k, '');
    else e.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.appendChild(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

export const $ = (sel, root = document) => root.querySelector(sel);

/**
 * Make `parent`'s children what `wanted` holds (nodes built by el()), keeping each node
 * already in place whose tag is the one wanted and changing only its attributes and text:
 * a part of the table that did not change is not styled, laid out and painted again at
 * every state. Only for nodes without listeners of their own (the table listens on its
 * containers), since a kept node keeps its listeners and loses the new node's.
 */
export function morph(parent, wanted) {
  const have = parent.childNodes;
  wanted.forEach((want, i) => {
    const old = have[i];
    if (!old) parent.appendChild(want);
    else if (old.nodeName !== want.nodeName) parent.replaceChild(want, old);
    else if (want.nodeType === Node.TEXT_NODE) { if (old.data !== want.data) old.data = want.data; }
    else {
      for (const { name } of [...old.attributes]) if (!want.hasAttribute(name)) old.removeAttribute(name);
      for (const { name, value } of want.attributes) if (old.getAttribute(name) !== value) old.setAttribute(name, value);
      morph(old, [...want.childNodes]);
    }
  });
  while (have.length > wanted.length) parent.lastChild.remove();
}

let mePromise = null;
/** The account of this page ({user, csrf}; user null for a guest), asked once per page. */
export function me(refresh = false) {
  if (refresh || !mePromise) {
    mePromise = fetch('/api/me', { credentials: 'same-origin' })
      .then((r) => (r.ok ? r.json() : { user: null, csrf: null }))
      .catch(() => ({ user: null, csrf: null }));
  }
  return mePromise;
}

/** JSON over HTTP. Throws an Error whose message is the server's `detail`, with its status, code and params.
 * A state-changing request carries the session's CSRF token (X-CSRF-Token) when the page is logged in. */
export async function api(method, path, body) {
  const headers = body === undefined ? {} : { 'Content-Type': 'application/json' };
  if (method !== 'GET' && method !== 'HEAD') {
    const { csrf } = await me();
    if (csrf) headers['X-CSRF-Token'] = csrf;
  }
  const res = await fetch(path, {
    method,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  let data = null;
  try { data = await res.json(); } catch { /* empty or not JSON */ }
  if (!res.ok) {
    let detail = data && data.detail !== undefined ? data.detail : `${res.status} ${res.statusText}`;
    // FastAPI's validation errors are a list of {loc, msg}.
    if (Array.isArray(detail)) detail = detail.map((d) => d.msg || JSON.stringify(d)).join('; ');
    const err = new Error(String(detail));
    err.status = res.status;
    // What refusalText() says in the page's language: the room's code, its params, a rate limit's wait.
    err.code = data && typeof data.code === 'string' ? data.code : undefined;
    err.params = (data && data.params) || {};
    // A rule that refused the request (the tournament desk's): refusalText says it from its params.
    if (data && typeof data.rule === 'string') err.rule = data.rule;
    const wait = Number(res.headers.get('Retry-After'));
    if (wait > 0) err.retryAfter = wait;
    throw err;
  }
  return data;
}

// Seats: localStorage "burraco.seats" = {tableId: {seat, token}}.
const SEATS = 'burraco.seats';

export function loadSeats() {
  try { return JSON.parse(localStorage.getItem(SEATS) || '{}') || {}; } catch { return {}; }
}
export function seatFor(table) { return loadSeats()[table] || null; }
export function saveSeat(table, seat, token) {
  const all = loadSeats();
  all[table] = { seat, token };
  localStorage.setItem(SEATS, JSON.stringify(all));
}
export function forgetSeat(table) {
  const all = loadSeats();
  delete all[table];
  localStorage.setItem(SEATS, JSON.stringify(all));
}

export function savedName() { try { return localStorage.getItem('burraco.name') || ''; } catch { return ''; } }
export function saveName(n) { try { localStorage.setItem('burraco.name', n); } catch { /* ignore */ } }

// Table setups per preset (RULES.md / variants.py), used when
// GET /api/variants is missing or has another shape than expected.
export const FALLBACK_VARIANTS = [
  { name: 'italian', setups: [[2, 2], [3, 3], [4, 2], [5, 5], [6, 3], [6, 2]], deals: null, target: 2005 },
  { name: 'online', setups: [[2, 2], [4, 2]], deals: 3, target: null },
  { name: 'buraco', setups: [[2, 2], [3, 3], [4, 4], [4, 2], [6, 2]], deals: null, target: 1500 },
  { name: 'canasta', setups: [[2, 2], [4, 2]], deals: null, target: 15000 },
  { name: 'buraco-aberto', setups: [[2, 2], [4, 2]], deals: null, target: 3000 },
  { name: 'buraco-fechado', setups: [[2, 2], [4, 2]], deals: null, target: 3000 },
  { name: 'stbl', setups: [[2, 2], [4, 2]], deals: null, target: 3000 },
];

/** The label of a (players, lines) setup. */
export function setupLabel(players, lines) {
  if (players === lines) return players === 4 ? t('setup.alone4') : t('setup.alone', { players });
  if (players === 6 && lines === 3) return t('setup.three_pairs');
  if (players === 6 && lines === 2) return t('setup.trios');
  return t('setup.pairs', { players });
}

export function variantLabel(name) {
  const s = t('variant.' + name);
  return s === 'variant.' + name ? name : s;
}

// The names the server gives bots: a table's bot seats "greedy bot 1" (room.py,
// quick/play.py), a tournament's bot lines "Greedy 5" and, in pairs, their players
// "Greedy 5a" and "Greedy 5b" (tournament.py, pad_with_bots): the tournament's names
// sit at its tables too.
const TOURNAMENT_BOT = /^(Random|Greedy|Expert|Learned) (\d+[ab]?)$/;

/**
 * A bot's name in the page's language, with the lobby's words for its level ("Bot
 * intermedio 4"): the one place every page names bots. Only for a name the server gave a
 * bot (a bot seat, a bot line); level, when known, must be the name's. Any other name as it is.
 */
export function botName(name, level = null) {
  const seat = /^(random|greedy|expert|learned) bot (\d+)$/.exec(name || '');
  const line = TOURNAMENT_BOT.exec(name || '');
  const found = seat ? [seat[1], seat[2]] : line ? [line[1].toLowerCase(), line[2]] : null;
  if (!found || (level && found[0] !== level)) return name;
  return t('seat.bot_name', { level: t(`bot_short.${found[0]}`), n: found[1] });
}

/** A bot account's name, marked as a bot's (docs/bots.md): a program plays it. */
export function programName(name) {
  return t('seat.program', { name });
}

/** A seat's name as the server gives it: a house bot's in the reader's words, a bot
 * account's marked as a bot's, a person's as it is. */
export function seatLabel(s) {
  if (s.kind === 'bot') return botName(s.name);
  return s.program ? programName(s.name) : s.name;
}

/** A seat's display name. */
export function seatName(info, seat, mySeat = null) {
  const s = info && info.seats && info.seats[seat];
  let name = s && s.name ? seatLabel(s) : t('seat.n', { n: seat + 1 });
  if (mySeat !== null && seat === mySeat) name = s && s.name ? s.name : t('table.you');
  return name;
}

/** A line's display name from the seats in it: "Anna & Carla". */
export function lineName(info, lineOf, line, mySeat = null) {
  const seats = [];
  lineOf.forEach((l, s) => { if (l === line) seats.push(s); });
  if (!seats.length) return t('table.line', { n: line + 1 });
  return seats.map((s) => seatName(info, s, mySeat)).join(' & ');
}

/** The seats of each match line at the start of a deal: seat s is in line s mod lines (variants.py). */
export function defaultLineOf(players, lines) {
  return Array.from({ length: players }, (_, s) => s % lines);
}

let toastTimer = null;
/** Show a message in #toast; kind is "error", "info" or "hint". */
export function toast(message, kind = 'info', ms = 5000) {
  const box = document.getElementById('toast');
  if (!box) return;
  box.textContent = message;
  box.className = 'toast show ' + kind;
  box.dataset.kind = kind;
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.className = 'toast'; box.hidden = true; }, ms);
}

export function hideToast() {
  const box = document.getElementById('toast');
  if (box) { box.className = 'toast'; box.hidden = true; }
}
