// The table page: /table/{id}.
//
// The server is the referee: every click becomes an action text (README's
// notation) sent over the WebSocket, and the page only ever shows the last
// `state` the server sent. Nothing is applied locally, except what is the
// player's own business: which cards are raised and the order of the hand.
//
// ?demo=1 (also demo=draw, waiting, deal, over, canasta, six) renders a
// built-in sample position without a server (see demo.js); clicks then show
// the action they would send. &raise=5H,6H raises cards in the demo.

import {
  t, getLang, initI18n, onLangChange, moveText, hintText, refusalText, formatNumber,
} from './i18n.js';
import {
  cardEl, backEl, backsEl, placeholderEl, fanEl, cardText, cardLabel, nameByContent,
  sortBySuit, sortByValue, parseAction, countCards, normCard,
} from './cards.js';
import {
  el, $, morph, api, me, seatFor, saveSeat, forgetSeat, savedName, saveName, toast, hideToast,
  seatName, lineName, variantLabel, setupLabel, defaultLineOf, seatLabel,
} from './common.js';
import { applyPrefs, getPrefs, setPref, reducedMotion } from './prefs.js';
import { sound } from './sound.js';
import { initChat, onChat, onChatHistory, renderChat, setChatEnabled } from './chat.js';

const params = new URLSearchParams(location.search);
const DEMO = params.get('demo');
/** ?watch=1: a spectator, who sees what is public (never a hand) and plays nothing. */
const WATCH = params.get('watch') === '1';

/** Everything the page knows. `msg` is the last `state` message: the truth. */
const S = {
  id: null,
  seat: null,
  token: null,
  ws: null,
  attempts: 0, // reconnection attempts since the last good connection
  everConnected: false,
  retryTimer: null,
  pingTimer: null,
  msg: null,
  version: 0,
  seen: 0, // the last event version seen (events and states), for `sync`
  log: [], // [{version, seat, action}]
  logDropped: {}, // deal number → its moves dropped from the front of the log
  logScroll: 0, // the frame that scrolls the moves list to its end
  logIntoView: false, // and brings its newest line into sight (a phone's drawer opened)
  flight: null, // the move whose cards fly in the next frame, and where they come from
  order: [], // the hand as the player arranged it: [{id, card}]
  nextId: 1,
  raised: new Set(), // ids of raised cards
  newIds: new Set(), // ids of cards that just arrived (glow)
  sortMode: localStorage.getItem('burraco.sort') || 'suit',
  job: null, // an extension in progress (several `extend` actions)
  hint: null, // {verb, meld, cards} of the last hint, until the next state
  glow: null, // the last move, to highlight
  lastPozzetto: null, // the last move (JSON of `last`) when it also took a pozzetto
  clock: null, // {seat, deadline, end (local ms), total}
  dealScores: {}, // deal number → DealScore, from deal_over
  dealEnds: {}, // deal number → the version of the action that ended it
  pause: null, // between two deals: {deal, end (local ms), ready, waiting}
  pauseModal: false, // the score window is up for the pause (it closes when the deal begins)
  dealClock: null, // a tournament's deal clock: {end (local ms), called}
  finals: {}, // deal number → its final table, fetched once
  matchOver: null,
  sheetShown: false,
  pendingSheet: false,
  ratings: null, // the rating changes of a rated match, once stored
  ratingsAsked: false,
  rematch: null, // the rematch a seat offered: {table, seat, name}
  drag: null,
  pointerDone: 0, // when a press on a card was last handled at its release (its click is then skipped)
  deferredRender: false,
  acted: null, // the version the player's last action was sent at, until a state moves past it
};

// ---------------------------------------------------------------- boot

function tableIdFromUrl() {
  const m = location.pathname.match(/\/table\/([^/?#]+)/);
  if (m) return decodeURIComponent(m[1]);
  return params.get('table'); // for testing the page outside the server
}

async function boot() {
  applyPrefs();
  initI18n();
  followTopBar();
  onLangChange(() => { renderAll(); renderChat(); if (S.msg && S.msg.table.status === 'waiting') renderWaiting(); });
  wireControls();
  initChat({
    send: wsSend,
    // A player's own messages carry its seat; a spectator's, the name it watches under.
    mine: (c) => (WATCH ? c.seat === null && c.name === savedName().trim() : c.seat === S.seat),
  });
  setInterval(() => { tickTimer(); tickDealClock(); if (S.pause) renderPause(); }, 250);

  if (DEMO) { startDemo(); return; }
  S.id = tableIdFromUrl();
  S.guide = !WATCH && guided(S.id);
  if (!S.id) { showOnly('join-box'); $('#join-status').textContent = t('table.not_found'); return; }
  const mine = seatFor(S.id);
  if (WATCH) {
    document.body.classList.add('watching');
    connect();
  } else if (mine && mine.token) {
    S.seat = mine.seat;
    S.token = mine.token;
    restoreOrder();
    connect();
    pollWhileWaiting();
  } else {
    openBySession();
  }
}

/** A registered player's seat opens by the session alone (from another device, or after
 * the browser forgot the token): the socket goes without a token, and the room looks the
 * account up. Anyone else joins. */
async function openBySession() {
  try {
    const { user } = await me();
    if (user) {
      const { tables } = await api('GET', '/api/me/tables');
      if (tables.some((info) => info.table === S.id)) {
        S.token = '';
        S.bySession = true;
        connect();
        pollWhileWaiting();
        return;
      }
    }
  } catch { /* a guest, or the room is unreachable: the join box says so */ }
  showJoinBox();
}

/** Whether this table is a guided first deal (remembered, so a reload keeps the coach). */
function guided(id) {
  const key = `burraco.guide.${id}`;
  try {
    if (params.get('guide') === '1') localStorage.setItem(key, '1');
    return localStorage.getItem(key) === '1';
  } catch {
    return params.get('guide') === '1';
  }
}

function showOnly(which) {
  for (const id of ['join-box', 'waiting', 'board']) $('#' + id).hidden = id !== which;
  const playing = which === 'board';
  $('#hand-area').hidden = !playing || WATCH;
  $('#watch-band').hidden = !playing || !WATCH;
  $('#side').hidden = !playing;
  // The players chat while they wait for the others too: the chat sits in the waiting
  // panel until the match begins, then in the side column.
  const chat = $('#chat-box');
  const home = which === 'waiting' && !WATCH ? $('#waiting') : $('#side');
  if (chat.parentElement !== home) home.append(chat);
  chat.hidden = !(playing || which === 'waiting') || (WATCH && !playing);
  document.body.classList.toggle('playing', playing);
}

// ---------------------------------------------------------------- joining

async function showJoinBox() {
  showOnly('join-box');
  $('#join-name').value = savedName();
  const sel = $('#join-seat');
  let info;
  try {
    info = await api('GET', `/api/tables/${encodeURIComponent(S.id)}`);
  } catch (e) {
    $('#join-status').textContent = e.status === 404 ? t('table.not_found') : refusalText(e);
    $('#join-button').disabled = true;
    return;
  }
  $('#table-title').textContent = `${variantLabel(info.variant)} · ${setupLabel(info.players, info.lines)}`;
  const free = (info.seats || []).filter((s) => s.kind === 'empty');
  sel.replaceChildren(...free.map((s) => el('option', { value: s.seat, text: t('seat.n', { n: s.seat + 1 }) })));
  $('#join-button').disabled = free.length === 0;
  $('#join-status').textContent = free.length ? '' : t('table.no_free_seat');
}

async function joinTable(ev) {
  ev.preventDefault();
  const name = $('#join-name').value.trim();
  if (!name) { $('#join-name').reportValidity(); return; }
  saveName(name);
  const seat = $('#join-seat').value;
  try {
    const res = await api('POST', `/api/tables/${encodeURIComponent(S.id)}/join`,
      { name, seat: seat === '' ? null : Number(seat) });
    saveSeat(res.table, res.seat, res.token);
    S.seat = res.seat;
    S.token = res.token;
    connect();
    pollWhileWaiting();
  } catch (e) {
    $('#join-status').textContent = refusalText(e);
  }
}

/*
 * Before the start, also read the table over HTTP every few seconds: the
 * seats list stays fresh even if the server only sends a `state` when the
 * match starts, and the waiting room shows before the socket's first state.
 */
async function pollWhileWaiting() {
  if (S.msg && S.msg.table.status !== 'waiting') return;
  try {
    const info = await api('GET', `/api/tables/${encodeURIComponent(S.id)}`);
    if (info.status === 'waiting') {
      if (!S.msg) S.msg = { type: 'state', version: 0, table: info, seat: S.seat, view: null, legal: [], last: null, clock: null, totals: info.totals, scores: [] };
      else if (!S.msg.view) S.msg = { ...S.msg, table: info };
      if (!S.msg.view) renderAll();
    }
  } catch { /* the socket will tell */ }
  if (!S.msg || S.msg.table.status === 'waiting') setTimeout(pollWhileWaiting, 3000);
}

// ---------------------------------------------------------------- socket

function connect() {
  clearTimeout(S.retryTimer);
  setConn(t('table.connecting'), 'connecting');
  const proto = location.protocol === 'https:' ? 'wss' : 'ws';
  const query = WATCH ? `watch=1&name=${encodeURIComponent(savedName())}` : `token=${encodeURIComponent(S.token)}`;
  const ws = new WebSocket(`${proto}://${location.host}/ws/${encodeURIComponent(S.id)}?${query}`);
  S.ws = ws;
  ws.onopen = () => {
    S.attempts = 0;
    setConn(t('table.connected'), 'ok');
    // After a reconnection, ask for the events we missed (the state follows); on the
    // first connection, for the whole log, so the moves list survives a reload.
    wsSend({ type: 'sync', since: S.everConnected ? S.seen : 0 });
    S.everConnected = true;
    clearInterval(S.pingTimer);
    S.pingTimer = setInterval(() => wsSend({ type: 'ping' }), 20000);
  };
  ws.onmessage = (ev) => {
    let m;
    try { m = JSON.parse(ev.data); } catch { return; }
    onMessage(m);
  };
  ws.onclose = (ev) => {
    clearInterval(S.pingTimer);
    if (S.ws !== ws) return;
    S.ws = null;
    if (S.job) S.job = null;
    if (ev.code === 4409) {
      // The seat was opened in another window: that one plays; coming back here takes it back.
      setConn(t('table.replaced'), 'lost');
      toast(t('table.replaced'), 'error', 10000);
      return;
    }
    if (ev.code === 4403 && WATCH) {
      // The table is not open to spectators (the error said why): no reconnection.
      setConn('', '');
      showJoinBox();
      return;
    }
    if (ev.code === 4403) {
      // The token is not (or no longer) valid for this table.
      forgetSeat(S.id);
      S.token = null;
      setConn('', '');
      toast(t('table.seat_lost'), 'error');
      showJoinBox();
      return;
    }
    scheduleReconnect();
  };
}

function scheduleReconnect() {
  // Exponential backoff with jitter: 0.5 s, 1 s, 2 s … up to 15 s.
  const base = Math.min(15000, 500 * 2 ** S.attempts);
  const delay = Math.round(base * (0.75 + Math.random() * 0.5));
  S.attempts += 1;
  const until = Date.now() + delay;
  const show = () => setConn(t('table.reconnecting', { s: Math.max(0, Math.ceil((until - Date.now()) / 1000)) }), 'lost');
  show();
  clearTimeout(S.retryTimer);
  const iv = setInterval(show, 500);
  S.retryTimer = setTimeout(() => { clearInterval(iv); connect(); }, delay);
}

function wsSend(obj) {
  if (S.ws && S.ws.readyState === WebSocket.OPEN) { S.ws.send(JSON.stringify(obj)); return true; }
  return false;
}

function setConn(text, kind) {
  const c = $('#conn');
  c.textContent = kind === 'ok' ? '' : text;
  c.dataset.state = kind;
  c.title = text;
}

document.addEventListener('visibilitychange', () => {
  // Phones suspend sockets in the background: reconnect at once on return.
  if (!document.hidden && !DEMO && (S.token || S.bySession || WATCH) && !S.ws) connect();
});

/** Send one action; in demo mode only say what would be sent. */
function sendAction(action) {
  if (WATCH) return false; // a spectator plays nothing
  if (DEMO) { toast(t('table.demo_send', { action }), 'info'); return false; }
  if (!wsSend({ type: 'action', action, version: S.version })) {
    toast(t('table.not_connected'), 'error');
    return false;
  }
  // The hint was for the move before this one.
  if ($('#toast').dataset.kind === 'hint') hideToast();
  S.acted = S.version;
  return true;
}

// ---------------------------------------------------------------- messages

function onMessage(m) {
  switch (m.type) {
    case 'state': onState(m); break;
    case 'event': onEvent(m); break;
    case 'deal_over': onDealOver(m); break;
    case 'match_over': onMatchOver(m); break;
    case 'rematch': onRematch(m); break;
    case 'error': onError(m); break;
    case 'hint': onHint(m); break;
    case 'chat': onChat(m); break;
    case 'chat_history': onChatHistory(m); break;
    case 'pong': break;
    default: break;
  }
}

function onState(m) {
  const prev = S.msg;
  const changed = !prev || m.version !== prev.version;
  // A spectator that fell behind hears only the newest state: the moves between come
  // from a sync.
  if (WATCH && prev && m.version > S.seen + 1) wsSend({ type: 'sync', since: S.seen });
  S.msg = m;
  S.version = m.version;
  if (m.seat !== undefined && m.seat !== null) S.seat = m.seat;
  const view = m.view;
  if (view) {
    const freshDeal = !prev || !prev.view || prev.view.deal !== view.deal;
    reconcileHand(view.hand || [], freshDeal, !prev);
    updateClock(m.clock);
    updateDealClock(m.deal_clock);
    S.seen = Math.max(S.seen, m.version);
    // A new last move (a state may also come for other reasons: a seat
    // connecting, a sync; then `last` is the same as before).
    const newLast = m.last && changed && (!prev || JSON.stringify(prev.last) !== JSON.stringify(m.last));
    if (newLast) {
      const top = S.log[S.log.length - 1];
      const viaEvent = top && top.seat === m.last.seat && top.action === m.last.action && prev && top.version > prev.version;
      const pozzetto = tookPozzetto(prev, m);
      if (!viaEvent) addLog({ version: m.version, seat: m.last.seat, action: m.last.action });
      S.lastPozzetto = pozzetto ? JSON.stringify(m.last) : null;
      if (pozzetto) {
        const entry = [...S.log].reverse().find((x) => x.seat === m.last.seat && x.action === m.last.action);
        if (entry) entry.pozzetto = true;
      }
      S.glow = { version: m.version, at: Date.now(), seat: m.last.seat, ...parseAction(m.last.action) };
    }
  } else {
    S.clock = null;
  }
  if (changed && prev && view) cueSounds(prev, m);
  if (changed) {
    // A hint is for the position it was asked in: it goes when the table moves on.
    S.hint = null;
    const box = $('#toast');
    if (box && box.dataset.kind === 'hint' && !box.hidden) hideToast();
    // A refusal is answered by the next move the room accepts: its toast goes then.
    if (S.acted !== null && m.version > S.acted) {
      S.acted = null;
      if (box && box.dataset.kind === 'error' && !box.hidden) hideToast();
    }
  }
  continueExtension(m);
  updatePause(m);
  if (m.table.rematch && !S.rematch) onRematch(m.table.rematch); // offered before a reload
  const moved = Boolean(S.glow && S.glow.version === m.version && changed && prev);
  // Where the cards come from is measured on the table as last laid out: a move that
  // comes within the frame of another (a bot's draw, melds and discard) does not fly.
  const from = moved && !S.flight ? moveSource(S.glow) : null;
  renderAll();
  if (moved) flyInNextFrame(S.glow, from);
  if (m.table.status === 'over' && !S.sheetShown && !S.matchOver) {
    // Reconnected after the end: build the sheet from the state (the room's own match_over).
    onMatchOver(m.match_over || { type: 'match_over', totals: m.totals, winner: undefined, victory_points: null, abandoned_by: null });
  }
}

/**
 * Did the one move between prev and m also take a pozzetto? The engine
 * hands it over by itself (no action of its own): the mover's line has it now.
 */
function tookPozzetto(prev, m) {
  const a = prev && prev.view;
  const b = m.view;
  if (!a || !b || a.deal !== b.deal || m.version !== prev.version + 1) return false;
  if (!m.last || m.last.seat === null || m.last.seat === undefined) return false;
  const line = b.line_of[m.last.seat];
  return !(a.has_pozzetto || [])[line] && Boolean((b.has_pozzetto || [])[line]);
}

function onEvent(m) {
  if (typeof m.version === 'number') {
    if (m.version <= S.seen && S.log.some((x) => x.version === m.version)) return;
    S.seen = Math.max(S.seen, m.version);
  }
  addLog({ version: m.version, seat: m.seat, action: m.action });
  renderLog();
}

function addLog(entry) {
  if (S.log.some((x) => x.version === entry.version && x.action === entry.action && x.seat === entry.seat)) return;
  S.log.push(entry);
  S.log.sort((a, b) => (a.version ?? 0) - (b.version ?? 0));
  // The log keeps the last 300 to 400 moves: a hundred go at once, so that the list
  // changes at its front once in a hundred moves, and their deal's count goes on.
  if (S.log.length > 400) {
    for (const e of S.log.splice(0, S.log.length - 300)) {
      if (e.action === 'start') continue;
      const d = dealOfVersion(e.version);
      S.logDropped[d] = (S.logDropped[d] || 0) + 1;
    }
  }
}

function notAllowed(error) {
  const text = refusalText(error, { info: S.msg && S.msg.table, seat: S.seat });
  // The engine's rules are clauses ("the hand does not hold 5♥"); the room's own refusals are sentences.
  toast(error.code === 'illegal' || !error.code ? `${t('table.not_allowed')} ${text}` : text, 'error', 7000);
}

function onError(m) {
  S.acted = null; // this action was refused: only the next accepted one clears its toast
  const job = S.job;
  if (job && job.sent) {
    // One card of an extension did not fit (yet): try the next one.
    if (m.code === 'illegal') { job.lastError = m; job.sent = null; stepExtension(); return; }
    S.job = null;
  }
  if (m.code === 'stale') {
    toast(t('table.stale'), 'error');
    wsSend({ type: 'sync', since: S.seen });
    return;
  }
  if (m.code === 'unavailable') {
    toast(t('table.unavailable'), 'error', 10000);
    return;
  }
  // A sync that crossed the answer to the one before it: this window holds those events
  // already, and the state that follows them is on its way.
  if (m.code === 'sync_repeated') return;
  if (m.code === 'busy' && S.guide && S.coachAsked === S.version) {
    // The coach's question met a busy thinking pool (or a search still on its way for
    // this table): it asks again in a moment, without a toast.
    setTimeout(() => { if (S.coachAsked === S.version) { S.coachAsked = null; renderAll(); } }, 1500);
    return;
  }
  notAllowed(m);
}

/** Keep --top-h at the bar's height: the phone's drawers open below it; and --hand-h at
 * the hand's: the toast opens above it, clear of the other players' row at the top. */
function followTopBar() {
  const follow = (box, name) => {
    if (!box || typeof ResizeObserver === 'undefined') return;
    const set = () => document.documentElement.style.setProperty(name, `${Math.ceil(box.getBoundingClientRect().height)}px`);
    new ResizeObserver(set).observe(box);
    set();
  };
  follow(document.querySelector('.topbar'), '--top-h');
  follow(document.querySelector('#hand-area'), '--hand-h');
}

// A hint is read in a few seconds; it goes sooner when the player acts or the table moves.
const HINT_MS = 8000;

function onHint(m) {
  S.hint = { action: m.action, ...parseAction(m.action) };
  const text = hintText(m.action, m.reason, m.why, m.params);
  if (S.guide) {
    // The coach says it in its panel, beside what this step is.
    S.coachHint = { version: S.version, text };
  } else {
    toast(`${t('table.hint_prefix')} ${text}`, 'hint', HINT_MS);
  }
  renderAll();
}

// ---------------------------------------------------------------- the coach

/**
 * A guided first deal (?guide=1, remembered for the table): a panel says what each step
 * of the turn is, and on the player's turn asks the hint engine what to do and why.
 */
function renderCoach(m) {
  const box = $('#coach');
  if (!S.guide || !m.view) { box.hidden = true; return; }
  box.hidden = false;
  const v = m.view;
  const info = m.table;
  const mine = (m.legal || []).length > 0;
  const line = v.line_of[S.seat];
  const ownMelds = (v.melds[line] || []).length;
  const burracos = ((v.grades || [])[line] || []).filter(Boolean).length;
  const hand = (v.hand || []).length;
  let step;
  if (info.status === 'over' || v.phase === 'over') step = t('coach.over');
  else if (!mine) step = t('coach.wait', { name: seatName(info, v.turn, S.seat) });
  else if (v.phase === 'draw') step = t('coach.draw');
  else if (v.has_pozzetto && v.has_pozzetto[line] && burracos) step = t('coach.can_close');
  else if (v.has_pozzetto && !v.has_pozzetto[line] && hand <= 3) step = t('coach.pozzetto');
  else if (!ownMelds) step = t('coach.play_first');
  else step = t('coach.play');
  $('#coach-step').textContent = step;
  const hint = $('#coach-hint');
  const closed = hintsClosed(info);
  if (closed) { hint.textContent = hintsClosedText(closed); return; }
  if (!mine) { hint.textContent = ''; return; }
  if (S.coachHint && S.coachHint.version === m.version) {
    hint.textContent = t('coach.suggests', { hint: S.coachHint.text });
  } else if (S.coachAsked !== m.version) {
    S.coachAsked = m.version;
    hint.textContent = t('coach.thinking');
    wsSend({ type: 'hint' });
  }
}

// ---------------------------------------------------------------- the hand

function restoreOrder() {
  try {
    const saved = JSON.parse(sessionStorage.getItem(`burraco.order.${S.id}`) || 'null');
    if (Array.isArray(saved)) S.order = saved.map((card) => ({ id: S.nextId++, card }));
  } catch { /* ignore */ }
}

function saveOrder() {
  if (!S.id || DEMO) return;
  try { sessionStorage.setItem(`burraco.order.${S.id}`, JSON.stringify(S.order.map((x) => x.card))); } catch { /* ignore */ }
}

/**
 * Fit the player's arrangement to the hand the server sent: keep the cards
 * still held where the player put them, drop the ones played (raised copies
 * first, so that the other copy of a double card stays put) and append the
 * new ones at the right. A new deal is sorted by the player's sort mode.
 */
function reconcileHand(hand, freshDeal, firstLoad) {
  const cards = hand.map(normCard);
  const counts = countCards(cards);
  let prev = S.order;
  if (freshDeal && !firstLoad) prev = [];
  const prevCounts = countCards(prev.map((x) => x.card));
  const excess = new Map();
  for (const [code, n] of prevCounts) {
    const keep = counts.get(code) || 0;
    if (n > keep) excess.set(code, n - keep);
  }
  const dropped = new Set();
  for (const raisedOnly of [true, false]) {
    for (const item of prev) {
      const d = excess.get(item.card) || 0;
      if (d > 0 && !dropped.has(item.id) && (!raisedOnly || S.raised.has(item.id))) {
        dropped.add(item.id);
        excess.set(item.card, d - 1);
      }
    }
  }
  const kept = prev.filter((x) => !dropped.has(x.id));
  const left = countCards(kept.map((x) => x.card));
  const added = [];
  for (const code of cards) {
    const n = left.get(code) || 0;
    if (n > 0) left.set(code, n - 1);
    else added.push({ id: S.nextId++, card: code });
  }
  let order = kept.concat(added);
  const wasEmpty = kept.length === 0;
  if (wasEmpty) order = sortItems(order, S.sortMode);
  S.order = order;
  const ids = new Set(order.map((x) => x.id));
  S.raised = new Set([...S.raised].filter((id) => ids.has(id)));
  S.newIds = wasEmpty ? new Set() : new Set(added.map((x) => x.id));
  saveOrder();
}

function sortItems(items, mode) {
  return mode === 'value' ? sortByValue(items, (x) => x.card) : sortBySuit(items, (x) => x.card);
}

function raisedCards() {
  return S.order.filter((x) => S.raised.has(x.id)).map((x) => x.card);
}

// ---------------------------------------------------------------- clock

function updateClock(clock) {
  if (!clock) { S.clock = null; return; }
  if (S.clock && S.clock.deadline === clock.deadline && S.clock.seat === clock.seat) return; // same turn
  const now = Date.now();
  const total = Math.max(0, (clock.seconds || 0) * 1000);
  const remaining = clock.deadline - now;
  // The deadline is in the server's time. If it is not within the move's
  // length from our "now", the clocks disagree: count clock.seconds from the
  // moment the state arrived instead.
  const skewed = !(remaining <= total + 1500 && remaining > -1500);
  S.clock = { seat: clock.seat, deadline: clock.deadline, end: skewed ? now + total : clock.deadline, total, absentEnd: now + (clock.absent || 0) * 1000 };
}

/** An element's text, written only if it changed (a write lays the page out again). */
function setText(node, text) {
  if (node.textContent !== text) node.textContent = text;
}

/** An element's attribute, written only if it changed. */
function setAttr(node, name, value) {
  if (node.getAttribute(name) !== value) node.setAttribute(name, value);
}

/** Hide or show an element, touching it only if that changes something. */
function setHidden(node, hidden) {
  if (node.hidden !== hidden) node.hidden = hidden;
}

function tickTimer() {
  const box = $('#timer');
  const c = S.clock;
  const playing = S.msg && S.msg.view && S.msg.table.status === 'playing' && S.msg.view.phase !== 'over';
  if (!c || !c.total || !playing) { setHidden(box, true); return; }
  setHidden(box, false);
  const ms = Math.max(0, c.end - Date.now());
  const s = Math.ceil(ms / 1000);
  const name = seatName(S.msg.table, c.seat, S.seat);
  // A player who has not opened the table since the deal began is waited for first.
  const absent = c.seat !== S.seat && Date.now() < c.absentEnd;
  // Written only when a second has passed (this runs four times a second): an unchanged
  // page is not laid out and painted again, and the bar moves by whole seconds, scaled
  // on the compositor rather than resized (a phone's battery, and a busy machine).
  setText(box.querySelector('.timer-text'), absent ? t('table.waiting_absent', { name, s }) : t('table.seconds_left', { s }));
  const fill = box.querySelector('.timer-fill');
  const scale = `scaleX(${Math.round(Math.min(1000, (1e6 * s) / c.total)) / 1000})`;
  if (fill.style.transform !== scale) fill.style.transform = scale;
  setAttr(box, 'data-seconds', String(s));
  setAttr(box, 'data-seat', String(c.seat));
  setAttr(box, 'aria-label', t('table.timer_aria', { name, s, n: s }));
  box.classList.toggle('mine', c.seat === S.seat);
  box.classList.toggle('low', s <= 10);
  if (c.seat === S.seat && s <= 10 && s > 0 && s !== S.lastTick) sound('tick');
  S.lastTick = s;
}

// ---------------------------------------------------------------- sound and motion

/** The sounds of a change: your turn begins, a burraco is made. */
function cueSounds(prev, m) {
  const mine = (x) => Boolean(x && x.legal && x.legal.length);
  if (!mine(prev) && mine(m)) sound('turn');
  const burracos = (x) => (x.view && x.view.grades ? x.view.grades.flat().filter(Boolean).length : 0);
  if (prev.view && m.view && prev.view.deal === m.view.deal && burracos(m) > burracos(prev)) sound('burraco');
}

/** Where the last move's cards come from, measured before the table is drawn again. */
function moveSource(g) {
  if (reducedMotion() || !g) return null;
  const rect = (e) => (e ? e.getBoundingClientRect() : null);
  if (g.verb === 'draw' || g.verb === 'redraw') return rect($('#stock'));
  if (g.verb === 'take') return rect($('#pile'));
  if (g.seat === S.seat) return rect($('#hand'));
  return rect(document.querySelector(`#others [data-seat="${g.seat}"]`)) || rect($('#their-lines'));
}

/** The move's cards fly when the frame is drawn: the table is laid out once for it, not
 * once more for each state that came within it (the last of them flies, if measured). */
function flyInNextFrame(g, from) {
  const pending = S.flight;
  S.flight = { g, from };
  if (pending) return;
  requestAnimationFrame(() => {
    const { g: last, from: start } = S.flight;
    S.flight = null;
    if (S.msg && S.msg.version === last.version) animateMove(last, start);
  });
}

/** Cards fly from where they came to where they land (none when the system asks for
 * reduced motion); the table itself is already drawn in its new state. */
function animateMove(g, from) {
  if (!from || reducedMotion() || !document.body.animate) return;
  let targets = [];
  if (g.verb === 'discard') targets = [document.querySelector('#pile .card')];
  else if (g.verb === 'meld' || g.verb === 'extend') targets = [...document.querySelectorAll('.meld.glow')];
  else if ((g.verb === 'draw' || g.verb === 'take' || g.verb === 'redraw') && g.seat === S.seat) targets = [...document.querySelectorAll('#hand .card.new')];
  else if (g.verb === 'draw' || g.verb === 'take') targets = [document.querySelector(`#others [data-seat="${g.seat}"] .card`)];
  for (const target of targets.filter(Boolean)) {
    const to = target.getBoundingClientRect();
    const dx = from.left + from.width / 2 - (to.left + to.width / 2);
    const dy = from.top + from.height / 2 - (to.top + to.height / 2);
    target.animate(
      [{ transform: `translate(${dx}px, ${dy}px) scale(0.7)`, opacity: 0.5 }, { transform: 'none', opacity: 1 }],
      { duration: 420, easing: 'cubic-bezier(0.2, 0.7, 0.3, 1)' },
    );
    window.burracoMoves = (window.burracoMoves || 0) + 1; // for the tests: cards that flew
  }
}

// ---------------------------------------------------------------- settings

function wireSettings() {
  const dlg = $('#settings');
  const sync = () => {
    const p = getPrefs();
    for (const r of document.querySelectorAll('input[name="card-size"]')) r.checked = r.value === p.cards;
    $('#four-colour').checked = Boolean(p.fourColour);
    $('#sound-on').checked = !p.muted;
    $('#mute').setAttribute('aria-pressed', String(Boolean(p.muted)));
    // A drawn speaker (an emoji may be missing from the system's fonts).
    const waves = p.muted ? '<path d="M16 9l5 6M21 9l-5 6" stroke="currentColor" stroke-width="2" fill="none"/>'
      : '<path d="M16 8.5a5 5 0 0 1 0 7M18.5 6a8.5 8.5 0 0 1 0 12" stroke="currentColor" stroke-width="2" fill="none"/>';
    $('#mute').innerHTML = `<svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path d="M3 9h4l5-4v14l-5-4H3z"/>${waves}</svg>`;
  };
  $('#settings-button').addEventListener('click', () => { sync(); dlg.showModal(); });
  $('#settings-close').addEventListener('click', () => dlg.close());
  for (const r of document.querySelectorAll('input[name="card-size"]')) {
    r.addEventListener('change', () => { if (r.checked) setPref('cards', r.value); });
  }
  $('#four-colour').addEventListener('change', (e) => setPref('fourColour', e.target.checked));
  $('#sound-on').addEventListener('change', (e) => { setPref('muted', !e.target.checked); sync(); if (e.target.checked) sound('turn'); });
  $('#mute').addEventListener('click', () => { setPref('muted', !getPrefs().muted); sync(); if (!getPrefs().muted) sound('turn'); });
  sync();
}

/** A tournament's deal clock: the time left for the whole deal, in the header. */
function updateDealClock(clock) {
  S.dealClock = clock ? { end: Date.now() + clock.seconds * 1000, called: clock.called } : null;
}

function tickDealClock() {
  const box = $('#deal-clock');
  const c = S.dealClock;
  const playing = S.msg && S.msg.table.status === 'playing' && !S.pause;
  if (!c || !playing) { setHidden(box, true); return; }
  setHidden(box, false);
  const left = Math.max(0, Math.ceil((c.end - Date.now()) / 1000));
  const text = c.called ? t('table.deal_clock_called')
    : t('table.deal_clock', { time: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, '0')}` });
  setText(box, text);
  box.classList.toggle('low', !c.called && left <= 60);
  setAttr(box, 'data-seconds', String(left));
}

// ---------------------------------------------------------------- between two deals

/**
 * Between two deals the server holds the next deal: no clock runs and no bot
 * moves until every person has pressed "next deal", or its countdown ends.
 * The score window stays up meanwhile (a reload brings it back) and closes
 * by itself when the next deal begins.
 */
function updatePause(m) {
  const p = m.pause;
  if (!p) {
    S.pause = null;
    if (S.pauseModal) {
      S.pauseModal = false;
      if ($('#score-modal').open) $('#score-modal').close();
    }
    // The window's button and status are the pause's until redrawn: the last deal's window
    // would open with a disabled "next deal" and a frozen countdown.
    renderPause();
    return;
  }
  S.pause = { deal: p.deal, end: Date.now() + p.seconds * 1000, ready: p.ready, waiting: p.waiting };
  const dlg = $('#score-modal');
  // A spectator who closed the window keeps it closed until the next deal's end.
  const closedByWatcher = WATCH && S.pauseShown === p.deal && !dlg.open;
  if (!closedByWatcher && (!dlg.open || $('#final-table').dataset.deal !== String(p.deal))) {
    // Reloaded (or reconnected) during the pause: the window from the state.
    const score = S.dealScores[p.deal] || (m.scores || [])[p.deal - 1];
    if (score) {
      const totals = (m.scores || []).slice(0, p.deal).reduce((acc, sc) => acc.map((x, i) => x + (sc.points[i] || 0)), score.points.map(() => 0));
      fillDealModal({ deal: p.deal, score, totals }, m.table);
    }
    if (!dlg.open) dlg.showModal();
  }
  if (WATCH) S.pauseShown = p.deal;
  S.pauseModal = true;
  renderPause();
}

function renderPause() {
  const p = S.pause;
  const status = $('#next-deal-status');
  const button = $('#score-continue');
  if (!p) {
    button.disabled = false;
    // The last deal's window says the match is over and leads to the final sheet.
    const last = Boolean(S.matchOver);
    status.hidden = !last;
    status.textContent = last ? t('score.match_over_note') : '';
    delete status.dataset.seconds;
    button.textContent = t(last ? 'score.see_sheet' : 'score.continue');
    return;
  }
  const left = Math.max(0, Math.ceil((p.end - Date.now()) / 1000));
  const info = S.msg ? S.msg.table : null;
  const waiting = (p.waiting || []).filter((s) => s !== S.seat).map((s) => seatName(info, s, S.seat));
  const pressed = (p.ready || []).includes(S.seat);
  // Redrawn four times a second: written only where it changed. The players start the
  // next deal; a spectator only closes the window.
  setHidden(status, false);
  setText(status, pressed && waiting.length && !WATCH
    ? t('table.next_deal_waiting', { names: waiting.join(', '), s: left })
    : t('table.next_deal_in', { s: left }));
  setAttr(status, 'data-seconds', String(left));
  setText(button, t(WATCH ? 'score.close' : 'table.next_deal'));
  const disabled = pressed && !WATCH;
  if (button.disabled !== disabled) button.disabled = disabled;
}

function pressNextDeal() {
  if (WATCH) { $('#score-modal').close(); return; } // the players start the next deal
  if (wsSend({ type: 'next_deal' }) && S.pause) {
    S.pause.ready = [...(S.pause.ready || []), S.seat];
    renderPause();
  }
}

/** The final table of a deal that has ended: every line's melds, read-only. */
async function showFinal(n, box) {
  if (!n) return;
  let data = S.finals[n];
  if (!data) {
    box.replaceChildren(el('p', { class: 'muted', text: t('table.loading') }));
    try { data = await api('GET', `/api/tables/${encodeURIComponent(S.id)}/deals/${n}`); } catch (e) {
      box.replaceChildren(el('p', { class: 'muted', text: refusalText(e) || String(e) }));
      return;
    }
    S.finals[n] = data;
  }
  const info = S.msg ? S.msg.table : null;
  // The lines with seats in them (a line given up by a partnership has none).
  box.replaceChildren(...linesOf(data).map((l) => [data.melds[l] || [], l]).map(([melds, l]) => el('div', { class: 'final-line', 'data-line': l },
    el('h4', {}, info ? lineName(info, data.line_of, l, S.seat) : `#${l + 1}`,
      data.has_pozzetto[l] ? el('span', { class: 'chip-mini pz-taken', text: `✓ ${t('table.took_pozzetto')}` }) : null),
    melds.length ? el('div', { class: 'final-melds' }, ...melds.map((cards) => el('div', {
      class: 'meld' + (cards.length >= 7 ? ' burraco' : ''),
      role: 'img',
      'aria-label': cards.map((c) => cardLabel(c, getLang())).join(', '),
    }, fanEl(cards, { size: 'sm' })))) : el('p', { class: 'muted', text: t('table.no_melds') }))));
}

/** A bot plays for this seat after a time-out: say so, and offer the seat back. */
function renderTakeover(m) {
  const mine = m.table.seats && m.table.seats[S.seat];
  const taken = Boolean(mine && mine.taken_over && m.table.status === 'playing');
  const banner = $('#takeover');
  banner.hidden = !taken;
  if (!taken) $('#take-back').disabled = false;
}

// ---------------------------------------------------------------- rendering

function renderAll() {
  if (S.drag && S.drag.active) { S.deferredRender = true; return; }
  const m = S.msg;
  if (!m) return;
  renderHeader(m);
  if (m.table.status === 'waiting' || !m.view) { showOnly('waiting'); renderWaiting(); return; }
  showOnly('board');
  renderBoard(m);
  renderLog();
  renderTakeover(m);
  renderCoach(m);
  tickTimer();
}

function renderHeader(m) {
  const info = m.table;
  renderWatchers(info);
  // A table made rated that plays unrated (server/results/fairplay.py) says so, and why.
  $('#unrated').hidden = !info.unrated;
  if (info.unrated) {
    $('#unrated').textContent = t('player.unrated');
    $('#unrated').title = t(`score.unrated_${info.unrated}`);
  }
  $('#table-title').textContent = variantLabel(info.variant);
  $('#table-title').title = `${variantLabel(info.variant)} · ${setupLabel(info.players, info.lines)}`;
  $('#rules-link').href = `/rules/${encodeURIComponent(info.variant)}`;
  const deal = (m.view && m.view.deal) || info.deal || 1;
  $('#deal-info').textContent = info.deals ? t('table.deals_of', { n: deal, of: info.deals })
    : info.target ? t('table.to_target', { n: deal, target: info.target }) : t('table.deal', { n: deal });
  const totals = info.status === 'waiting' ? [] : m.totals || info.totals || [];
  const lineOf = defaultLineOf(info.players, info.lines);
  $('#totals').replaceChildren(...totals.map((pts, l) => el('span', {
    class: 'total' + (lineOf[S.seat] === l ? ' ours' : ''),
    title: lineName(info, lineOf, l, S.seat),
    'data-line': l,
  }, el('span', { class: 'total-name', text: lineName(info, lineOf, l, S.seat) }), el('b', { text: pts }))));
  renderTurn(m);
}

/** How many watch (everyone sees it), chat on or off, and a spectator's delay. */
function renderWatchers(info) {
  const n = info.watchers || 0;
  const chip = $('#watchers');
  chip.hidden = !n;
  chip.textContent = t('watch.count', { n });
  chip.dataset.count = String(n);
  setChatEnabled(info.chat !== false);
  // Spectators talk among themselves: the players never read it.
  if (WATCH) $('#chat-title').textContent = t('chat.title_watchers');
  $('#watch-delay').textContent = WATCH && info.watch_delay ? t('watch.delay', { n: info.watch_delay }) : '';
}

function renderTurn(m) {
  const box = $('#turn');
  const v = m.view;
  let text = '';
  let mine = false;
  if (m.table.status === 'waiting') text = t('table.waiting');
  else if (m.table.status === 'over') text = t('table.match_over');
  else if (v && v.phase === 'over') text = t('table.deal_over');
  else if (m.pause) text = t('table.between_deals', { n: m.pause.deal });
  else if (v && WATCH) text = t('table.turn_of', { name: seatName(m.table, v.turn) });
  else if (v) {
    mine = v.turn === S.seat;
    // Offer the pile only when a take is legal (not on Buraco's first turn, nor in
    // Canasta before a line may take it).
    const canTake = (m.legal || []).some((a) => a === 'take' || a.startsWith('take '));
    const drawKey = canTake ? 'table.your_turn_draw' : 'table.your_turn_draw_only';
    // A closed pile just taken (buraco fechado, STBL): its top card is melded first.
    const playKey = v.pile_top ? 'table.your_turn_meld_top' : 'table.your_turn_play';
    // The card as the page shows cards ("A♦", the joker by its name), never its code.
    const top = v.pile_top ? (normCard(v.pile_top) === 'JK' ? t('card.joker') : cardText(v.pile_top)) : '';
    text = mine ? t(v.phase === 'draw' ? drawKey : playKey, { card: top })
      : t('table.turn_of', { name: seatName(m.table, v.turn, S.seat) });
  }
  box.textContent = text;
  box.classList.toggle('mine', mine);
  box.dataset.seat = v ? String(v.turn) : '';
  box.dataset.phase = v ? v.phase : '';
}

function renderWaiting() {
  const m = S.msg;
  const info = m ? m.table : null;
  if (!info) return;
  $('#seats').replaceChildren(...info.seats.map((s) => el('li', {
    class: `seat-row kind-${s.kind}`, 'data-seat': s.seat,
  },
  el('span', { class: 'seat-no', text: s.seat + 1 }),
  el('span', { class: 'seat-name', text: s.kind === 'empty' ? t('seat.empty') : seatLabel(s) || t(`seat.${s.kind}`) }),
  s.seat === S.seat ? el('span', { class: 'badge', text: t('seat.you') }) : null,
  s.kind === 'bot' ? el('span', { class: 'badge', text: t('seat.bot') }) : null,
  s.kind === 'human' && !s.connected ? el('span', { class: 'badge muted', text: t('seat.offline') }) : null)));
  $('#invite-link').value = `${location.origin}/table/${encodeURIComponent(S.id || 'demo')}`;
  const creator = S.seat === 0 && info.status === 'waiting' && !WATCH;
  $('#start').hidden = !creator;
  $('#wait-creator').hidden = creator;
}

function isPartner(v, s) { return !WATCH && s !== S.seat && v.line_of[s] === v.line_of[S.seat]; }

function seatBadge(m, s, compact = false) {
  const v = m.view;
  const info = m.table;
  const seatInfo = info.seats[s] || {};
  const cls = ['seat'];
  if (v.turn === s && v.phase !== 'over') cls.push('on-turn');
  if (isPartner(v, s)) cls.push('partner');
  else if (s !== S.seat) cls.push('opponent');
  if (S.glow && S.glow.seat === s && (S.glow.verb === 'draw' || S.glow.verb === 'take') && recentGlow()) cls.push('glow');
  const chips = [];
  if (v.dealer === s) chips.push(el('span', { class: 'chip-d', role: 'img', title: t('seat.dealer'), 'aria-label': t('seat.dealer'), text: t('seat.dealer_short') }));
  if (seatInfo.kind === 'bot') chips.push(el('span', { class: 'chip-mini', text: t('seat.bot') }));
  if (seatInfo.kind === 'human' && seatInfo.connected === false) chips.push(el('span', { class: 'chip-mini off', text: t('seat.offline') }));
  if (isPartner(v, s)) chips.push(el('span', { class: 'chip-mini', text: t('seat.partner') }));
  const pfd = (v.pozzetto_face_down || [])[s] || 0;
  if (pfd) chips.push(el('span', { class: 'chip-mini pz', text: t('table.pozzetto_waiting', { n: pfd }) }));
  const name = el('span', { class: 'seat-name', text: seatName(info, s, S.seat) });
  const size = (v.hand_sizes || [])[s] ?? 0;
  return el('div', { class: cls.join(' '), 'data-seat': s, role: 'group', 'aria-label': t('table.seat_aria', { name: seatName(info, s, S.seat), n: size }) },
    el('div', { class: 'seat-head' }, name, ...chips),
    compact ? null : backsEl(size, { max: 6, className: 'seat-backs' }));
}

function recentGlow() { return S.glow && S.glow.version === S.version && Date.now() - S.glow.at < 3000; }

function renderBoard(m) {
  const v = m.view;
  const info = m.table;
  const n = v.hand_sizes.length;
  // A spectator sits nowhere: every seat is shown above, seat 1's line below.
  const myLine = WATCH ? v.line_of[0] : v.line !== undefined ? v.line : v.line_of[S.seat];

  // Other seats, in playing order from the one after us.
  const others = [];
  if (WATCH) for (let s = 0; s < n; s++) others.push(seatBadge(m, s));
  else for (let i = 1; i < n; i++) others.push(seatBadge(m, (S.seat + i) % n));
  morph($('#others'), others);

  // Lines: the others' above, ours below (002). Only lines with seats in
  // them: the engine's melds list may hold more entries than lines.
  const theirs = [];
  for (const l of linesOf(v)) if (l !== myLine) theirs.push(lineEl(m, l, false));
  morph($('#their-lines'), theirs);
  $('#their-lines').dataset.count = String(theirs.length);
  morph($('#my-line'), [lineEl(m, myLine, !WATCH)]);

  renderCenter(m);

  // Open hands of partners (002's optional rule).
  const ph = v.partner_hands || {};
  morph($('#partner-hands'), Object.entries(ph).map(([s, cards]) => el('div', { class: 'partner-hand', 'data-seat': s },
    el('span', { class: 'label', text: t('table.hand_of', { name: seatName(info, Number(s), S.seat) }) }),
    fanEl(sortBySuit(cards), { size: 'sm', lang: getLang() }))));

  if (WATCH) return;
  // Our own seat badge, by the hand.
  const me = seatBadge(m, S.seat, true);
  me.id = 'my-seat';
  me.classList.add('my-seat');
  $('#my-seat').replaceWith(me);

  renderHand(m);
  const legal = m.legal || [];
  $('#redraw').hidden = !legal.includes('redraw');
  $('#pass').hidden = !legal.includes('pass');
  $('#abandon').hidden = info.status !== 'playing';
  // Fair play: no hint at a rated or tournament table until the match is over (the room
  // refuses it too); the button says why in its title.
  const closed = hintsClosed(info);
  $('#hint').disabled = Boolean(closed) || !(v.turn === S.seat && v.phase !== 'over');
  $('#hint').title = closed ? hintsClosedText(closed) : '';
}

/** Why this table gives no hint while its match is in play ('rated', 'tournament'), or null. */
function hintsClosed(info) {
  return info && info.status !== 'over' ? (info.hints_closed || null) : null;
}

function hintsClosedText(closed) {
  return closed === 'tournament' ? t('error.no_hints_tournament') : t('error.no_hints_rated');
}

/** The lines in play, in order: the distinct values of line_of. */
function linesOf(v) {
  return [...new Set(v.line_of)].sort((a, b) => a - b);
}

function lineEl(m, l, mine) {
  const v = m.view;
  const info = m.table;
  const melds = v.melds[l] || [];
  const head = el('div', { class: 'line-head' },
    el('span', { class: 'line-name', text: mine ? `${t('table.our_line')} · ${lineName(info, v.line_of, l, S.seat)}` : lineName(info, v.line_of, l, S.seat) }));
  const hasPz = (v.has_pozzetto || [])[l];
  const anyPozzetti = (v.pozzetti && v.pozzetti.length) || (v.has_pozzetto || []).some(Boolean);
  if (anyPozzetti) {
    head.appendChild(el('span', { class: 'chip-mini ' + (hasPz ? 'pz-taken' : 'pz-not'), 'data-pozzetto': hasPz ? 'taken' : 'not', text: hasPz ? `✓ ${t('table.took_pozzetto')}` : t('table.no_pozzetto') }));
  }
  const r3 = (v.red_threes || [])[l] || 0;
  if (r3 || info.variant === 'canasta') {
    const chip = el('span', { class: 'red-threes', 'data-red-threes': r3, title: t('table.red_threes') },
      el('span', { class: 'label', text: t('table.red_threes') }));
    for (let i = 0; i < Math.min(r3, 4); i++) chip.appendChild(cardEl(i % 2 ? '3D' : '3H', { size: 'xs' }));
    chip.appendChild(el('b', { text: `×${r3}` }));
    head.appendChild(chip);
  }
  const points = (v.line_points || [])[l];
  if (points !== undefined) {
    head.appendChild(el('span', { class: 'chip-mini line-points', 'data-points': points, text: t('table.line_points', { n: points }) }));
  }
  if (v.opened && v.opened[l] === false && v.minimum && v.minimum[l]) {
    head.appendChild(el('span', { class: 'chip-mini', text: t('table.to_open', { n: v.minimum[l] }) }));
  }
  const row = el('div', { class: 'melds' });
  if (mine) {
    const nm = placeholderEl(t('table.new_meld'), { tag: 'button' });
    nm.id = 'new-meld';
    nm.type = 'button';
    nm.setAttribute('aria-label', t('table.new_meld_aria'));
    if (S.hint && S.hint.verb === 'meld') nm.classList.add('hinted');
    row.appendChild(nm);
  }
  melds.forEach((cards, i) => row.appendChild(meldEl(m, l, i, cards, mine)));
  return el('section', { class: 'line' + (mine ? ' mine' : ''), 'data-line': l }, head, row);
}

function meldEl(m, l, i, cards, mine) {
  const info = m.table;
  const lname = lineName(info, m.view.line_of, l, S.seat);
  const b = el('button', {
    type: 'button',
    class: 'meld' + (cards.length >= 7 ? ' burraco' : '') + (mine ? ' own' : ''),
    'data-meld': i,
    'data-line': l,
    'data-cards': cards.map(normCard).join(' '),
  }, fanEl(cards, { size: 'sm' }));
  // Under the meld (never over its first card): its number, and its grade once it is a
  // burraco (canastra, canasta).
  const grade = ((m.view.grades || [])[l] || [])[i] || null;
  const mark = t(info.variant === 'canasta' ? 'mark.canasta' : info.variant === 'buraco' ? 'mark.canastra' : 'mark.burraco');
  b.appendChild(el('span', { class: 'meld-foot', 'aria-hidden': 'true' },
    el('span', { class: 'meld-no', text: i + 1 }),
    grade ? el('span', { class: 'meld-mark', 'data-grade': grade, text: t('table.grade_mark', { mark, grade: t(`grade.${grade}`) }) }) : null));
  const name = t('table.meld_aria', { n: i + 1, line: lname, cards: cards.map((c) => cardLabel(c, getLang())).join(', ') });
  nameByContent(b, grade ? `${name} (${t('table.grade_mark', { mark, grade: t(`grade.${grade}`) })})` : name);
  // The last move's meld glows (a new meld: the one with exactly its cards).
  const g = S.glow;
  if (g && recentGlow() && m.view.line_of[g.seat] === l) {
    if (g.verb === 'extend' && g.meld === i) b.classList.add('glow');
    if (g.verb === 'meld' && sameCards(g.cards, cards)) b.classList.add('glow');
  }
  if (S.hint && S.hint.verb === 'extend' && S.hint.meld === i && mine) b.classList.add('hinted');
  return b;
}

function sameCards(a, b) {
  if (a.length !== b.length) return false;
  const x = [...a].map(normCard).sort().join(' ');
  const y = [...b].map(normCard).sort().join(' ');
  return x === y;
}

function renderCenter(m) {
  const v = m.view;
  // Pozzetti nobody has taken yet: face-down stacks (under them, on the
  // left, sits the "new meld" placeholder of our line, as in 002).
  const pz = $('#pozzetti');
  const stacks = (v.pozzetti || []).map((size, i) => el('div', {
    class: 'pozzetto', 'data-pozzetto': i, role: 'img', 'aria-label': t('table.pozzetto_aria', { n: size }),
  }, backEl({ size: 'sm' }), backEl({ size: 'sm' }), el('span', { class: 'count', text: size })));
  morph(pz, stacks.length ? [el('span', { class: 'label', text: t('table.pozzetti') }), ...stacks] : []);
  pz.hidden = !(v.pozzetti && v.pozzetti.length);

  // Stock: the face-down card to click to draw.
  const stock = $('#stock');
  morph(stock, [v.stock > 0 ? backEl({ size: 'lg' }) : placeholderEl('', { size: 'lg', symbol: '∅' }), el('span', { class: 'count', text: v.stock })]);
  stock.setAttribute('aria-label', v.stock > 0 ? t('table.stock', { n: v.stock }) : t('table.stock_empty'));
  stock.dataset.count = String(v.stock);
  stock.classList.toggle('hinted', !!(S.hint && S.hint.verb === 'draw'));
  stock.classList.toggle('glow', !!(S.glow && S.glow.verb === 'draw' && recentGlow()));

  // Pile: its top card big, the count; a semi-transparent card when empty.
  const pile = $('#pile');
  const cards = v.pile || [];
  const top = cards.length ? cards[cards.length - 1] : null;
  const parts = [];
  if (top) parts.push(cardEl(top, { size: 'lg' })); else parts.push(placeholderEl(t('table.pile_empty_short'), { size: 'lg', symbol: '' }));
  // A closed pile (buraco fechado) shows its top only: it says so, in sight and to a
  // screen reader, with how many cards lie face down under the top.
  const closed = (m.table && m.table.pile_open === false) || Boolean(v.pile_hidden);
  const size = cards.length + (v.pile_hidden || 0);
  if (cards.length) parts.push(el('span', { class: 'count', text: size }));
  if (v.pile_hidden) parts.push(el('span', { class: 'hidden-count', text: t('table.pile_hidden', { n: v.pile_hidden }) }));
  pile.replaceChildren(...parts);
  pile.classList.toggle('empty', !top);
  pile.classList.toggle('closed', closed);
  pile.dataset.top = top ? normCard(top) : '';
  pile.dataset.count = String(cards.length);
  const named = closed ? 'table.pile_closed' : 'table.pile';
  nameByContent(pile, top ? t(named, { n: size, top: cardLabel(top, getLang()) }) : t('table.pile_empty'));
  pile.classList.toggle('hinted', !!(S.hint && (S.hint.verb === 'take' || S.hint.verb === 'discard')));
  pile.classList.toggle('glow', !!(S.glow && S.glow.verb === 'discard' && recentGlow()));

  // The rest of the pile, small, so that every discard stays visible.
  const strip = $('#pile-strip');
  // A closed pile has no cards to fan out: its place says that the pile is closed.
  if (closed) strip.replaceChildren(el('span', { class: 'pile-closed', text: t('table.pile_closed_label') }));
  else strip.replaceChildren(cards.length > 1 ? fanEl(cards.slice(0, -1), { size: 'xs' }) : '');

  $('#final-turn').hidden = !v.final_turn;
  const last = m.last;
  const lm = $('#last-move');
  if (last) {
    const who = last.seat === null || last.seat === undefined ? '' : seatName(m.table, last.seat, S.seat);
    lm.textContent = moveText(last.action, who, { pozzetto: S.lastPozzetto === JSON.stringify(last) });
    lm.dataset.action = last.action;
    lm.classList.toggle('flash', recentGlow());
  } else {
    lm.textContent = '';
  }
}

function renderHand(m) {
  const hand = $('#hand');
  const v = m.view;
  const lang = getLang();
  // Cards the hint names: mark one copy per card.
  const hinted = new Set();
  if (S.hint && S.hint.cards) {
    const want = countCards(S.hint.cards);
    for (const x of S.order) {
      const n = want.get(x.card) || 0;
      if (n > 0) { hinted.add(x.id); want.set(x.card, n - 1); }
    }
  }
  const items = S.order.map((x, i) => {
    const b = cardEl(x.card, { tag: 'button', size: 'hd', lang });
    b.type = 'button';
    b.dataset.card = x.card;
    b.dataset.index = String(i);
    b.dataset.id = String(x.id);
    const up = S.raised.has(x.id);
    b.classList.toggle('raised', up);
    b.setAttribute('aria-pressed', up ? 'true' : 'false');
    if (hinted.has(x.id)) b.classList.add('hinted');
    if (S.newIds.has(x.id)) b.classList.add('new');
    return b;
  });
  // A re-render (a new state, a sort) keeps the keyboard's place: the same card, or the
  // card now where it was.
  const had = hand.contains(document.activeElement) ? document.activeElement : null;
  hand.replaceChildren(...items);
  if (had) {
    const again = hand.querySelector(`.card[data-id="${had.dataset.id}"]`)
      || items[Math.min(Number(had.dataset.index), items.length - 1)];
    if (again) again.focus();
  }
  hand.classList.toggle('my-turn', v.turn === S.seat && v.phase !== 'over');
  hand.dataset.count = String(S.order.length);
}

/** The deal a logged version belongs to, from the versions that ended the deals before. */
function dealOfVersion(version) {
  if (typeof version !== 'number') return (S.msg && S.msg.view && S.msg.view.deal) || 1;
  let deal = 1;
  for (const [d, end] of Object.entries(S.dealEnds)) {
    if (end < version && Number(d) + 1 > deal) deal = Number(d) + 1;
  }
  return deal;
}

/** The moves list's lines, each with a key that changes when its text does: moves are
 * numbered within their deal (counting those dropped from the front of the log), and
 * each deal has its heading. */
function logLines(m) {
  const lines = [];
  let deal = null;
  let n = 0;
  for (const e of S.log) {
    const d = dealOfVersion(e.version);
    if (d !== deal) {
      deal = d;
      n = S.logDropped[d] || 0;
      const text = t('table.deal', { n: d });
      lines.push({ key: `deal ${d} ${text}`, make: () => el('li', { class: 'log-deal', 'aria-hidden': 'false', text }) });
    }
    if (e.action === 'start') continue;
    n += 1;
    const who = e.seat === null || e.seat === undefined ? '' : seatName(m.table, e.seat, S.seat);
    const text = moveText(e.action, who, { pozzetto: e.pozzetto });
    const value = n;
    lines.push({
      key: `${e.version ?? ''} ${d} ${value} ${e.action} ${text}`,
      make: () => el('li', { value, 'data-version': e.version ?? '', 'data-deal': d, 'data-action': e.action }, el('span', { class: 'act', text })),
    });
  }
  return lines;
}

/** The moves list drawn again where it changed: a move adds its line, the oldest lines go
 * as the log drops them. Drawing every line again at every move took more than half of a
 * phone's time at the table (300 lines built, styled and laid out for each state). */
function renderLog(scroll = false) {
  const m = S.msg;
  if (!m) return;
  const list = $('#log');
  const lines = logLines(m);
  const wanted = new Set(lines.map((line) => line.key));
  const shown = [...list.children];
  let kept = -1; // how many drawn lines stay, in order; -1: the list is drawn whole
  if (shown.every((li) => li.logKey !== undefined)) {
    for (const li of shown) if (!wanted.has(li.logKey)) li.remove();
    const left = [...list.children];
    if (left.every((li, i) => li.logKey === lines[i]?.key)) kept = left.length;
  }
  if (kept === lines.length && kept === shown.length && !scroll) return;
  const made = (kept < 0 ? lines : lines.slice(kept)).map((line) => {
    const li = line.make();
    li.logKey = line.key;
    return li;
  });
  if (kept < 0) list.replaceChildren(...made);
  else list.append(...made);
  // Scrolled to the newest move when the frame is laid out anyway, not by a layout of
  // its own in the middle of drawing the table.
  S.logIntoView = S.logIntoView || scroll;
  if (!S.logScroll) {
    S.logScroll = requestAnimationFrame(() => {
      S.logScroll = 0;
      list.scrollTop = list.scrollHeight;
      // A phone's moves open in a drawer that scrolls, not the list: its newest line is
      // brought into sight when the drawer opens.
      if (S.logIntoView && list.lastElementChild) list.lastElementChild.scrollIntoView({ block: 'nearest' });
      S.logIntoView = false;
    });
  }
}

// ---------------------------------------------------------------- actions

function myTurn() {
  const v = S.msg && S.msg.view;
  return !!v && v.turn === S.seat && v.phase !== 'over';
}

function clickStock() { sendAction('draw'); }

function clickPile(want) {
  const m = S.msg;
  if (!m || !m.view || WATCH) return;
  const raised = raisedCards();
  const v = m.view;
  // The pile is both "take" (draw phase) and "discard" (play phase), as in
  // 002. When it is not our turn the action still goes to the server, which
  // explains why it is refused. The keyboard says which it means (`want`: its take or
  // its discard letter); a click lets the phase decide.
  const take = typeof want === 'string' ? want === 'take'
    : v.phase === 'draw' || (myTurn() && (m.legal || []).some((a) => a.startsWith('take')) && !(m.legal || []).some((a) => a.startsWith('discard')));
  if (take) {
    // Canasta takes the pile by melding its top with two naturals from the hand.
    if (m.table.variant === 'canasta' && raised.length) sendAction(`take ${raised.join(' ')}`);
    else sendAction('take');
    return;
  }
  if (raised.length === 1) sendAction(`discard ${raised[0]}`);
  else toast(t('table.raise_one'), 'info');
}

function clickNewMeld() {
  const raised = raisedCards();
  if (!raised.length) { toast(t('table.raise_to_meld'), 'info'); return; }
  sendAction(`meld ${raised.join(' ')}`);
}

function clickMeld(line, index) {
  const v = S.msg && S.msg.view;
  if (!v || WATCH) return;
  const myLine = v.line_of[S.seat];
  if (line !== myLine) { toast(t('table.not_our_meld'), 'info'); return; }
  const raised = raisedCards();
  if (!raised.length) { toast(t('table.raise_to_extend'), 'info'); return; }
  startExtension(index, raised);
}

/*
 * Extending with several cards. The engine adds one card per action, and
 * the order can matter (a wildcard may only fit after a natural, or the
 * other way round). So: send one `extend N CARD`, wait for the answer, and
 * on success go on with the remaining cards; on an error try another
 * remaining card. When no remaining card fits, stop and show the (last)
 * rule the engine gave. Cards the server lists as legal are tried first.
 */
function startExtension(meld, cards) {
  if (DEMO) { toast(t('table.demo_send', { action: cards.map((c) => `extend ${meld} ${c}`).join(' · ') }), 'info'); return; }
  S.job = { meld, remaining: cards.slice(), tried: new Set(), lastError: null, sent: null, before: 0 };
  if (cards.length > 1) toast(t('table.extending', { cards: cards.map(cardText).join(' ') }), 'info', 2500);
  stepExtension();
}

function stepExtension() {
  const job = S.job;
  if (!job) return;
  if (!job.remaining.length) { S.job = null; return; }
  const untried = job.remaining.filter((c) => !job.tried.has(c));
  if (!untried.length) {
    S.job = null;
    if (job.lastError) notAllowed(job.lastError);
    return;
  }
  const legal = new Set(((S.msg && S.msg.legal) || []).map((a) => a.trim()));
  const pick = untried.find((c) => legal.has(`extend ${job.meld} ${c}`)) || untried[0];
  job.tried.add(pick);
  job.sent = pick;
  job.before = countCards((S.msg.view && S.msg.view.hand) || []).get(pick) || 0;
  if (!sendAction(`extend ${job.meld} ${pick}`)) S.job = null;
}

/** Called on each state: did the card we sent leave the hand? */
function continueExtension(m) {
  const job = S.job;
  if (!job || !job.sent) return;
  const v = m.view;
  if (!v || v.turn !== S.seat || v.phase !== 'play') { S.job = null; return; }
  const now = countCards(v.hand || []).get(job.sent) || 0;
  if (now >= job.before) return; // some other change (a seat connecting…): keep waiting
  const i = job.remaining.indexOf(job.sent);
  if (i >= 0) job.remaining.splice(i, 1);
  job.sent = null;
  job.tried = new Set();
  job.lastError = null;
  // Send the next card once this state is on screen.
  setTimeout(stepExtension, 0);
}

function clickHint() {
  if (DEMO) { onHint({ type: 'hint', action: 'meld 5H 6H 7H', reason: 'lay down 5H 6H 7H: 3 cards towards a burraco (about +12 points over the next best)', why: 'meld_towards', params: { meld: '5H 6H 7H', size: 3, margin: 12 } }); return; }
  if (!wsSend({ type: 'hint' })) toast(t('table.not_connected'), 'error');
}

function clickAbandon() {
  if (!confirm(t('table.abandon_confirm'))) return;
  if (DEMO) { toast(t('table.demo_send', { action: 'abandon' }), 'info'); return; }
  wsSend({ type: 'abandon' });
}

async function clickStart() {
  const btn = $('#start');
  if (DEMO) { toast(t('table.demo_send', { action: 'POST /start' }), 'info'); return; }
  btn.disabled = true;
  try {
    const info = await api('POST', `/api/tables/${encodeURIComponent(S.id)}/start`, { token: S.token });
    if (S.msg && info && info.table) { S.msg = { ...S.msg, table: info }; }
  } catch (e) {
    toast(refusalText(e), 'error');
  } finally {
    btn.disabled = false;
  }
}

function sortHand(mode) {
  S.sortMode = mode;
  try { localStorage.setItem('burraco.sort', mode); } catch { /* ignore */ }
  S.order = sortItems(S.order, mode);
  S.newIds = new Set();
  saveOrder();
  if (S.msg && S.msg.view) renderHand(S.msg);
}

function toggleRaise(id) {
  if (S.raised.has(id)) S.raised.delete(id); else S.raised.add(id);
  const up = S.raised.has(id);
  // The card's button now, which a state that came in mid-click may have drawn anew.
  const button = $('#hand').querySelector(`.card[data-id="${id}"]`);
  if (!button) return;
  button.classList.toggle('raised', up);
  button.setAttribute('aria-pressed', up ? 'true' : 'false');
}

function moveCard(fromIndex, toIndex) {
  if (fromIndex === toIndex || fromIndex < 0) return;
  const [item] = S.order.splice(fromIndex, 1);
  S.order.splice(Math.max(0, Math.min(S.order.length, toIndex)), 0, item);
  saveOrder();
}

// ---------------------------------------------------------------- dragging the hand
//
// Pointer events (mouse, pen and touch alike). A press that moves more than
// a few pixels is a drag, and the card lands where it is dropped; a press
// that does not move is a click that raises or lowers the card. The hand's
// cards have touch-action: pan-y, so a vertical swipe still scrolls the page
// on a phone while a sideways one moves the card.

function dropTarget(x, y, draggedEl) {
  const cards = [...$('#hand').children].filter((c) => c !== draggedEl);
  let best = null;
  let bestD = Infinity;
  for (const c of cards) {
    const r = c.getBoundingClientRect();
    const cx = r.left + r.width / 2;
    const cy = r.top + r.height / 2;
    const d = Math.hypot((x - cx) * 1, (y - cy) * 1.6); // rows matter more than columns
    if (d < bestD) { bestD = d; best = { el: c, after: x > cx }; }
  }
  return best;
}

function onPointerDown(e) {
  const card = e.target.closest('#hand .card');
  if (!card || (e.pointerType === 'mouse' && e.button !== 0)) return;
  S.drag = { el: card, id: Number(card.dataset.id), x0: e.clientX, y0: e.clientY, pointerId: e.pointerId, active: false, target: null };
}

function onPointerMove(e) {
  const d = S.drag;
  if (!d || e.pointerId !== d.pointerId) return;
  const dx = e.clientX - d.x0;
  const dy = e.clientY - d.y0;
  if (!d.active) {
    if (Math.hypot(dx, dy) < 8) return;
    d.active = true;
    try { d.el.setPointerCapture(e.pointerId); } catch { /* ignore */ }
    d.el.classList.add('dragging');
  }
  e.preventDefault();
  d.el.style.transform = `translate(${dx}px, ${dy}px)`;
  for (const c of $('#hand').querySelectorAll('.drop-before, .drop-after')) c.classList.remove('drop-before', 'drop-after');
  d.target = dropTarget(e.clientX, e.clientY, d.el);
  if (d.target) d.target.el.classList.add(d.target.after ? 'drop-after' : 'drop-before');
}

function endDrag(e, cancelled) {
  const d = S.drag;
  if (!d || (e && e.pointerId !== d.pointerId)) return;
  S.drag = null;
  if (!d.active) {
    // A press and release on a card raises it here, by the card's id, not in the click
    // that follows: a state that came in between the two redraws the hand, and the
    // browser then sends the click to the hand, not the card (the click was lost).
    if (!cancelled) { toggleRaise(d.id); S.pointerDone = performance.now(); }
    return;
  }
  S.pointerDone = performance.now(); // a drag's release is no click either
  d.el.classList.remove('dragging');
  d.el.style.transform = '';
  if (!cancelled && d.target) {
    const from = S.order.findIndex((x) => x.id === d.id);
    const targetId = Number(d.target.el.dataset.id);
    const item = S.order[from];
    S.order.splice(from, 1);
    let to = S.order.findIndex((x) => x.id === targetId);
    if (d.target.after) to += 1;
    S.order.splice(to, 0, item);
    saveOrder();
  }
  if (S.deferredRender) { S.deferredRender = false; renderAll(); } else if (S.msg && S.msg.view) renderHand(S.msg);
}

function onHandKey(e) {
  const card = e.target.closest('#hand .card');
  if (!card) return;
  const i = Number(card.dataset.index);
  if (!['ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(e.key)) return;
  e.preventDefault();
  const j = { ArrowLeft: i - 1, ArrowRight: i + 1, Home: 0, End: S.order.length - 1 }[e.key];
  if (j < 0 || j >= S.order.length) return;
  if (e.shiftKey && e.key.startsWith('Arrow')) { moveCard(i, j); renderHand(S.msg); } // Shift+arrow moves the card
  const next = $(`#hand .card[data-index="${j}"]`);
  if (next) next.focus();
}

// ---------------------------------------------------------------- keyboard
//
// Shortcuts, listed in the ? window (#keys-help): d draw, t take the pile, s sort (by suit /
// by value), ←/→ Home/End along the hand (Shift+arrow moves the card), Space/Enter raise or
// lower the card (it is a button), m meld, 1…9 add to our meld N, x discard, h hint, Esc
// lower every card. Each does what its click does. None fires while typing in a field or
// while a window is open (a window closes with Esc by itself).

function typingIn(target) {
  return !!(target && target.closest && target.closest('input, textarea, select, [contenteditable]:not([contenteditable="false"])'));
}

function openKeysHelp() {
  const dlg = $('#keys-help');
  if (!dlg.open) dlg.showModal();
}

function lowerAll() {
  if (!S.raised.size) return;
  S.raised.clear();
  if (S.msg && S.msg.view) renderHand(S.msg);
}

// The actions a letter plays: each language's letter is its own word's first ("d" draw,
// "p" pesca, "c" comprar), as the keys' window (#keys-help, keys.letter.*) shows them.
const LETTER_ACTIONS = ['draw', 'take', 'discard', 'sort', 'meld', 'hint'];

/** The action of a letter key in the page's language, or null. */
function letterAction(key) {
  if (key.length !== 1) return null;
  return LETTER_ACTIONS.find((a) => t(`keys.letter.${a}`).toLowerCase() === key) || null;
}

function onTableKey(e) {
  if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || e.isComposing) return;
  if (typingIn(e.target) || document.querySelector('dialog[open]')) return;
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  if (e.repeat && !key.startsWith('Arrow')) return; // a held key sends its action once
  if (key === '?') { e.preventDefault(); openKeysHelp(); return; }
  if (WATCH) return; // a spectator's keys play nothing
  const m = S.msg;
  if (!m || !m.view || $('#board').hidden) return;
  const cards = [...$('#hand').querySelectorAll('.card')];
  switch (letterAction(key) || key) {
    case 'ArrowLeft': case 'ArrowRight': case 'Home': case 'End': {
      // From outside the hand (its own keys move within it): to the first or the last card.
      if (!cards.length) return;
      (key === 'ArrowLeft' || key === 'End' ? cards[cards.length - 1] : cards[0]).focus();
      break;
    }
    case 'Escape': lowerAll(); break;
    case 'draw': clickStock(); break;
    case 'take': clickPile('take'); break;
    case 'discard': clickPile('discard'); break;
    case 'sort': sortHand(S.sortMode === 'suit' ? 'value' : 'suit'); break;
    case 'meld': clickNewMeld(); break;
    case 'hint': if (!$('#hint').disabled) clickHint(); break;
    default:
      if (!/^[1-9]$/.test(key)) return;
      clickMeld(m.view.line_of[S.seat], Number(key) - 1);
  }
  e.preventDefault();
}

// ---------------------------------------------------------------- scores

function onDealOver(m) {
  S.dealScores[m.deal] = m.score;
  if (typeof m.version === 'number') S.dealEnds[m.deal] = m.version;
  // A deal that ended before the state the page holds is history (a sync after a reload
  // replays it): its score goes to the sheet, the window does not open again.
  if (typeof m.version === 'number' && S.msg && m.version <= S.msg.version) { renderLog(); return; }
  S.lastDealOver = m;
  // The match_over came first and the sheet is up: the deal's row joins it, no window.
  if (S.sheetShown && $('#score-sheet').open) { showSheet(); return; }
  if (m.score && (m.score.end_reason === 'closed' || m.score.end_reason === 'went out')) sound('close');
  const info = S.msg ? S.msg.table : null;
  fillDealModal(m, info);
  if (S.matchOver) S.pendingSheet = true; // the match ended (its sheet was closed): it follows
  renderPause();
  const dlg = $('#score-modal');
  if (!dlg.open) dlg.showModal();
}

function scoreNames(info, score) {
  return score.lines.map((ls) => ls.seats.map((s) => seatName(info, s, S.seat)).join(' & '));
}

function fillDealModal(m, info) {
  const score = m.score;
  $('#score-modal-title').textContent = t('score.deal_title', { n: m.deal });
  const final = $('#final-table');
  if (final.dataset.deal !== String(m.deal)) {
    final.open = false;
    final.dataset.deal = String(m.deal);
    $('#final-table-body').replaceChildren();
  }
  const reason = score.end_reason;
  const closer = score.closer !== undefined && score.closer !== null && score.closer >= 0 ? seatName(info, score.closer, S.seat) : '';
  const endKey = `score.end.${reason}`;
  $('#score-modal-end').textContent = t(endKey, { name: closer }) === endKey ? reason || '' : t(endKey, { name: closer });
  const names = scoreNames(info, score);
  const variant = info ? info.variant : '';
  const rows = [
    ['melded', true], ['in_hand', true], ['burracos', true], ['closing', true],
    ['pozzetto_penalty', variant === 'italian' || variant === 'online'],
    ['relancinho', variant === 'buraco'], ['red_threes', variant === 'canasta'],
  ];
  const table = $('#score-breakdown');
  // Every header cell is named for screen readers (axe empty-table-header), the corner too.
  const head = el('tr', {}, el('th', { scope: 'col' }, el('span', { class: 'visually-hidden', text: t('rules.col.what') })), ...names.map((nm, i) => el('th', { scope: 'col', 'data-line': score.lines[i].line, text: nm })));
  const body = [];
  for (const [key, always] of rows) {
    const any = score.lines.some((ls) => (key === 'burracos' ? ls.burracos.length : ls[key]));
    if (!always && !any) continue;
    body.push(el('tr', { 'data-row': key }, el('th', { scope: 'row', text: t(`score.${key}`) }), ...score.lines.map((ls) => {
      if (key === 'burracos') {
        const list = ls.burracos.map(([grade, pts]) => `${t(`grade.${grade}`)} ${pts}`);
        const sum = ls.burracos.reduce((a, [, p]) => a + p, 0);
        return el('td', { title: list.join(', ') }, list.length ? el('span', { class: 'grades', text: list.join(', ') }) : '—', list.length > 1 ? el('b', { text: ` = ${sum}` }) : null);
      }
      return el('td', { class: num(ls[key]), text: fmt(ls[key]) });
    })));
  }
  body.push(el('tr', { class: 'total-row', 'data-row': 'total' }, el('th', { scope: 'row', text: t('score.total') }),
    ...score.lines.map((ls) => el('td', { class: num(ls.total), text: fmt(ls.total) }))));
  table.replaceChildren(el('thead', {}, head), el('tbody', {}, body));

  const totals = m.totals || [];
  const lineOf = info ? defaultLineOf(info.players, info.lines) : [];
  $('#score-running').replaceChildren(
    el('thead', {}, el('tr', {}, ...totals.map((_, l) => el('th', { scope: 'col', text: info ? lineName(info, lineOf, l, S.seat) : `#${l + 1}` })))),
    el('tbody', {}, el('tr', {}, ...totals.map((x, l) => el('td', { class: num(x), 'data-line': l, text: `${fmt(x)}${score.points && score.points[l] !== undefined ? `  (${fmt(score.points[l], true)})` : ''}` })))));
}

const fmt = (x, sign = false) => (typeof x === 'number' ? (sign && x > 0 ? `+${x}` : String(x)) : String(x ?? ''));
const num = (x) => (typeof x === 'number' && x < 0 ? 'neg' : '');

function onMatchOver(m) {
  S.matchOver = m;
  S.pause = null; // no deal follows: whatever the last state said
  renderPause();
  // The last deal's window first: the sheet follows however it closes (its close event).
  if ($('#score-modal').open) { S.pendingSheet = true; return; }
  showSheet();
}

function showSheet() {
  const m = S.matchOver;
  const st = S.msg;
  if (!m || !st) return;
  const info = st.table;
  const lineOf = defaultLineOf(info.players, info.lines);
  const lines = info.lines;
  const names = Array.from({ length: lines }, (_, l) => lineName(info, lineOf, l, S.seat));
  // Every deal's points per line: the state's list, completed by deal_over messages.
  // A deal_over may come before the state that lists it (or the state after a reload).
  const listed = st.scores || [];
  const heard = Object.keys(S.dealScores).map(Number);
  const count = Math.max(listed.length, ...heard, 0);
  const scores = Array.from({ length: count }, (_, i) => listed[i] || S.dealScores[i + 1]).filter(Boolean);
  const totals = m.totals || st.totals || [];
  const rows = scores.map((sc, i) => el('tr', { 'data-deal': i + 1 }, el('th', { scope: 'row', text: i + 1 }),
    ...names.map((_, l) => { const p = sc.points ? sc.points[l] : undefined; return el('td', { class: num(p), text: fmt(p) }); }),
    el('td', {}, el('button', { type: 'button', class: 'link', 'data-final': i + 1, text: t('score.final_table_short'), 'aria-label': t('score.final_of', { n: i + 1 }) }), ' · ',
      // The replay page analyses this deal for the player's seat (docs/review.md).
      el('a', { class: 'analyse-deal', href: `/replay/${encodeURIComponent(S.id || 'demo')}?analyse=${S.seat ?? 0}&deal=${i + 1}`, text: t('score.analyse_short'), 'aria-label': t('score.analyse_of', { n: i + 1 }) }))));
  const foot = [el('tr', { class: 'total-row' }, el('th', { scope: 'row', text: t('score.totals') }), ...totals.map((x) => el('td', { class: num(x), text: fmt(x) })))];
  if (m.victory_points) foot.push(el('tr', { class: 'vp-row' }, el('th', { scope: 'row', text: t('score.vp') }), ...m.victory_points.map((x) => el('td', { text: formatNumber(x) }))));
  $('#sheet-table').replaceChildren(
    el('thead', {}, el('tr', {}, el('th', { scope: 'col', text: t('score.deal_col') }), ...names.map((nm, l) => el('th', { scope: 'col', 'data-line': l, text: nm })),
      el('th', { scope: 'col' }, el('span', { class: 'visually-hidden', text: t('score.final_table') })))),
    el('tbody', {}, rows), el('tfoot', {}, foot));
  let winner = m.winner;
  if (winner === undefined) {
    // Not told (reconnected after the end): the line with the most points.
    const best = Math.max(...totals);
    const at = totals.map((x, i) => (x === best ? i : -1)).filter((i) => i >= 0);
    winner = at.length === 1 ? at[0] : null;
  }
  const parts = [winner === null || winner === undefined ? t('score.tie') : t('score.winner', { name: names[winner] ?? `#${winner + 1}` })];
  if (m.abandoned_by !== null && m.abandoned_by !== undefined) {
    // 002: whoever abandons (or runs out of time) loses, by the totals plus a penalty.
    parts.push(t('score.abandoned_penalty', { name: seatName(info, m.abandoned_by, S.seat), penalty: m.abandon_penalty ?? 350 }));
  }
  // A person a bot played for most of the match is rated as having abandoned it.
  for (const a of m.absent || []) {
    parts.push(t('score.absent', { name: seatName(info, a.seat, S.seat), bot: a.bot_turns, turns: a.turns }));
  }
  // A table made rated that played unrated says why (server/results/fairplay.py).
  if (m.unrated) parts.push(t(`score.unrated_${m.unrated}`));
  $('#sheet-result').replaceChildren(...parts.map((text) => el('span', { class: 'result-line', text })));
  $('#sheet-result').dataset.winner = winner === null || winner === undefined ? '' : String(winner);
  const id = encodeURIComponent(S.id || 'demo');
  $('#record-link').href = `/api/tables/${id}/record`;
  $('#record-link').setAttribute('download', `burraco-${S.id || 'demo'}.txt`);
  $('#replay-link').href = `/replay/${id}`;
  // The replay page asks for the review of the player's own seat (a spectator: seat 0).
  $('#analyse-link').href = `/replay/${id}?analyse=${S.seat ?? 0}&deal=1`;
  S.sheetShown = true;
  renderRematch();
  showRatings();
  const dlg = $('#score-sheet');
  if (!dlg.open) dlg.showModal();
}

/** Another seat offered a rematch: the sheet says so, with a way to its table. */
function onRematch(m) {
  S.rematch = { table: m.table, seat: m.seat, name: m.name };
  renderRematch();
}

function renderRematch() {
  const r = S.rematch;
  const offer = $('#rematch-offer');
  // A spectator plays no rematch; the one who offered it went there already.
  $('#rematch').hidden = WATCH;
  if (!r || WATCH || r.seat === S.seat) { offer.hidden = true; return; }
  const info = S.msg ? S.msg.table : null;
  $('#rematch-offer-text').textContent = t('score.rematch_offer', { name: info ? seatName(info, r.seat, S.seat) : r.name });
  $('#rematch-link').href = `/table/${encodeURIComponent(r.table)}`;
  offer.hidden = false;
}

/** "Play again": the room makes the rematch (or, offered already, seats the player at
 * it), and the page goes there with the new seat's token. */
async function clickRematch(e) {
  if (e) e.preventDefault();
  $('#rematch').disabled = true;
  try {
    const res = await api('POST', `/api/tables/${encodeURIComponent(S.id)}/rematch`, { token: S.bySession ? '' : S.token || '' });
    if (res.token) saveSeat(res.table, res.seat, res.token);
    location.href = res.url;
  } catch (err) {
    $('#rematch').disabled = false;
    toast(refusalText(err) || String(err), 'error', 7000);
  }
}

/** A rated match's rating changes on the sheet: the results' listener stores them a
 * moment after the end, so the sheet asks until they are there (a second apart). */
async function showRatings() {
  const box = $('#sheet-ratings');
  const info = S.msg && S.msg.table;
  if (!info || !info.rated || !S.id) { box.hidden = true; return; }
  box.hidden = false;
  if (S.ratings) { fillRatings(box, S.ratings); return; }
  if (S.ratingsAsked) return;
  S.ratingsAsked = true;
  box.replaceChildren(el('span', { class: 'muted', text: t('score.ratings_pending') }));
  for (let tries = 0; tries < 60; tries += 1) {
    try {
      const data = await api('GET', `/api/tables/${encodeURIComponent(S.id)}/ratings`);
      if (data.ready) { S.ratings = data; fillRatings(box, data); return; }
    } catch { /* asked again below */ }
    await new Promise((resolve) => { setTimeout(resolve, 1000); });
  }
  box.hidden = true;
}

function fillRatings(box, data) {
  box.hidden = !data.seats.length;
  const info = S.msg ? S.msg.table : null;
  box.replaceChildren(...data.seats.map((r) => el('span', {
    class: 'rating-change', 'data-seat': r.seat, 'data-change': r.change,
    // A bot's name in the reader's language, as everywhere on the page.
    text: t('score.rating_change', { name: info ? seatName(info, r.seat, S.seat) : r.name, before: r.before, after: r.after, delta: r.change > 0 ? `+${r.change}` : String(r.change) }),
  })));
}

// ---------------------------------------------------------------- wiring

function wireControls() {
  wireSettings();
  $('#join-form').addEventListener('submit', joinTable);
  $('#stock').addEventListener('click', clickStock);
  $('#pile').addEventListener('click', () => clickPile());
  $('#board').addEventListener('click', (e) => {
    if (e.target.closest('#new-meld')) { clickNewMeld(); return; }
    const meld = e.target.closest('.meld[data-meld]');
    if (meld) clickMeld(Number(meld.dataset.line), Number(meld.dataset.meld));
  });
  const hand = $('#hand');
  hand.addEventListener('click', (e) => {
    // The click of a press already handled at its release, a raise or a drag (a
    // keyboard's click has no detail).
    if (e.detail > 0 && performance.now() - S.pointerDone < 1000) { S.pointerDone = 0; return; }
    const card = e.target.closest('.card');
    if (card) toggleRaise(Number(card.dataset.id));
  });
  hand.addEventListener('pointerdown', onPointerDown);
  hand.addEventListener('pointermove', onPointerMove);
  hand.addEventListener('pointerup', (e) => endDrag(e, false));
  hand.addEventListener('pointercancel', (e) => endDrag(e, true));
  hand.addEventListener('keydown', onHandKey);
  document.addEventListener('keydown', onTableKey);
  $('#keys-button').addEventListener('click', openKeysHelp);
  $('#keys-close').addEventListener('click', () => $('#keys-help').close());
  $('#sort-suit').addEventListener('click', () => sortHand('suit'));
  $('#sort-value').addEventListener('click', () => sortHand('value'));
  $('#hint').addEventListener('click', clickHint);
  $('#abandon').addEventListener('click', clickAbandon);
  $('#redraw').addEventListener('click', () => sendAction('redraw'));
  $('#pass').addEventListener('click', () => sendAction('pass'));
  $('#start').addEventListener('click', clickStart);
  $('#copy-link').addEventListener('click', async () => {
    const input = $('#invite-link');
    try { await navigator.clipboard.writeText(input.value); } catch { input.select(); document.execCommand && document.execCommand('copy'); }
    toast(t('table.copied'), 'info', 2000);
  });
  $('#score-continue').addEventListener('click', () => {
    if (S.pause) { pressNextDeal(); return; }
    $('#score-modal').close();
  });
  // The button, Esc, or the page closing it: the final sheet follows the last deal's window.
  $('#score-modal').addEventListener('close', () => {
    if (S.pendingSheet) { S.pendingSheet = false; showSheet(); }
  });
  $('#final-table').addEventListener('toggle', () => {
    if ($('#final-table').open) showFinal(Number($('#final-table').dataset.deal), $('#final-table-body'));
  });
  $('#sheet-table').addEventListener('click', (e) => {
    const b = e.target.closest('button[data-final]');
    if (!b) return;
    const n = Number(b.dataset.final);
    $('#sheet-final').hidden = false;
    $('#sheet-final-title').textContent = t('score.final_of', { n });
    showFinal(n, $('#sheet-final-body'));
  });
  $('#moves-button').addEventListener('click', () => {
    // Phones: the moves list opens over the table and closes with the same button.
    const open = document.body.classList.toggle('show-moves');
    $('#moves-button').setAttribute('aria-expanded', String(open));
    if (open) $('#side').hidden = false;
    renderLog(true);
  });
  // A spectator's phone: the moves list opens from the watching band.
  $('#watch-moves').addEventListener('click', () => $('#moves-button').click());
  $('#coach-close').addEventListener('click', () => {
    S.guide = false;
    try { localStorage.removeItem(`burraco.guide.${S.id}`); } catch { /* ignore */ }
    // A reload must not bring it back: the address loses its ?guide=1.
    const url = new URL(location.href);
    url.searchParams.delete('guide');
    history.replaceState(null, '', url);
    $('#coach').hidden = true;
  });
  $('#take-back').addEventListener('click', () => {
    // The seat comes back at once; the bot does not make its next move.
    if (wsSend({ type: 'take_back' })) $('#take-back').disabled = true;
  });
  $('#sheet-close').addEventListener('click', () => $('#score-sheet').close());
  $('#rematch').addEventListener('click', clickRematch);
  $('#rematch-link').addEventListener('click', clickRematch);
}

// ---------------------------------------------------------------- demo mode

async function startDemo() {
  const { demoMessages } = await import('./demo.js');
  S.id = 'demo';
  $('#demo-banner').hidden = false;
  const { seat, messages } = demoMessages(DEMO, Date.now());
  S.seat = seat;
  S.guide = params.get('guide') === '1'; // the coach's panel, as a first deal shows it
  for (const msg of messages) onMessage(msg);
  const raise = (params.get('raise') || '').split(',').map((c) => c.trim()).filter(Boolean).map(normCard);
  for (const code of raise) {
    const item = S.order.find((x) => x.card === code && !S.raised.has(x.id));
    if (item) S.raised.add(item.id);
  }
  if (raise.length) renderAll();
}

// Read-only handle for automated browser tests and debugging in the console.
window.burracoTable = {
  get state() { return S.msg; },
  get order() { return S.order.map((x) => x.card); },
  get raised() { return raisedCards(); },
  get log() { return S.log.slice(); },
  get seen() { return S.seen; },
  dropConnection() { if (S.ws) S.ws.close(); }, // to test the reconnection
  // Send an action as a click would, with the version the page holds (or an older one, to
  // test the answer to a stale click).
  act(action, version = S.version) { return wsSend({ type: 'action', action, version }); },
};

boot();
