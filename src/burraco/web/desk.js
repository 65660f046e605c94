// The director's desk: /desk (a new tournament) and /desk/{id} (run it).
//
// The director's key (the token of POST /api/tournaments) is kept in
// localStorage "burraco.desk" = {tournamentId: token}; the players' personal
// links, which the server gives only once, in "burraco.deskLinks" =
// {tournamentId: {entrantId: [{name, token}]}}. Without a key the page shows
// the tournament read-only. The helpers exported at the top also draw the
// standings and rounds of the player's page (tournament.js).

import { t, tn, initI18n, onLangChange, formatTime, formatNumber, refusalText } from './i18n.js';
import { el, $, api, toast, botName, variantLabel, FALLBACK_VARIANTS } from './common.js';

const DESK = 'burraco.desk';
const LINKS = 'burraco.deskLinks';
const POLL_MS = 3000;

// ---------------------------------------------------------------- storage

function loadJSON(key) {
  try { return JSON.parse(localStorage.getItem(key) || '{}') || {}; } catch { return {}; }
}
function saveJSON(key, value) {
  try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* storage may be full or disabled */ }
}
export function directorKey(id) { return loadJSON(DESK)[id] || null; }
function saveDirectorKey(id, token) {
  const all = loadJSON(DESK);
  if (token) all[id] = token; else delete all[id];
  saveJSON(DESK, all);
}
function loadLinks(id) { return loadJSON(LINKS)[id] || {}; }
function saveLinks(id, entrant, players, tokens) {
  const all = loadJSON(LINKS);
  all[id] = all[id] || {};
  all[id][entrant] = players.map((name, i) => ({ name, token: tokens[i] }));
  saveJSON(LINKS, all);
}

// ---------------------------------------------------------------- shared drawing

const enc = encodeURIComponent;
export const apiBase = (id) => `/api/tournaments/${enc(id)}`;
export function playerUrl(id, token) {
  return `${location.origin}/tournament/${enc(id)}?player=${enc(token)}`;
}

/** A bot line's (or its player's) name in the page's language ("intermediate bot 5",
 * "Bot intermedio 5a", common.js's botName); any other name as it is. */
export function lineName(name, bot) {
  return bot ? botName(name, bot) : name;
}

/** Entrant id -> {name, players, bot}; the standings carry the team names of bot lines.
 * A bot line's name is in the page's language; the players' names are as registered. */
export function namesOf(data) {
  const m = new Map();
  for (const e of data.entrants || []) m.set(e.id, { name: lineName(e.players.join(' / '), e.bot), players: e.players, bot: e.bot });
  for (const s of data.standings || []) {
    const x = m.get(s.entrant);
    if (x) x.name = lineName(s.name, x.bot); else m.set(s.entrant, { name: s.name, players: [], bot: null });
  }
  return m;
}

export function formatLabel(f) { return t('format.' + f); }

export function phaseText(data) {
  return t('phase.' + data.phase, { n: (data.rounds || []).length });
}

export function settingsText(s) {
  const parts = [variantLabel(s.game || 'italian'), formatLabel(s.format), t('kind.' + s.kind + '_short'),
    t('desk.n_deals', { n: s.deals }), t('desk.n_minutes', { n: s.deal_minutes })];
  if (s.move_seconds) parts.push(t('desk.n_move_seconds', { n: s.move_seconds }));
  if (s.grace_seconds) parts.push(t('desk.n_grace', { time: clockText(s.grace_seconds) }));
  if (s.rounds) parts.push(t('desk.n_rounds', { n: s.rounds }));
  if (s.spectators === false) parts.push(t('watch.no_spectators'));
  if (s.chat === false) parts.push(t('chat.off_short'));
  return parts.join(' · ');
}

export function progressText(data) {
  const n = (data.rounds || []).length;
  const of = data.settings.rounds;
  if (!n) return t('desk.no_round_yet');
  return of ? t('desk.round_of', { n, of }) : t('desk.round_n', { n });
}

/** Seat index at a room table -> compass letter (pairs N E S W, individual N S). */
export function seatDir(kind, seat) {
  const dirs = kind === 'pairs' ? ['N', 'E', 'S', 'W'] : ['N', 'S'];
  return dirs[seat] ?? '?';
}
export function dirLabel(d) { return t('dir.' + d); }

/** Seconds as a clock reads them: "2:05". */
export function clockText(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

/** What the grace of a table's absent players says now (its end in ms, or null). */
function graceText(until) {
  const left = until ? (until - Date.now()) / 1000 : 0;
  return left > 0 ? t('desk.grace_left', { time: clockText(left) }) : t('desk.grace_over');
}

/** The grace left at each table, each second (the page is redrawn only when data change). */
export function tickGraces(root = document) {
  for (const span of root.querySelectorAll('.grace-left')) {
    span.textContent = graceText(Number(span.dataset.until) || null);
  }
}

/** Fill a <table> with the standings; rows tr[data-entrant], cells rank, name, VP, MP, played. */
export function fillStandings(table, data, { mine = null } = {}) {
  const knockout = data.settings && data.settings.format === 'knockout';
  const names = namesOf(data);
  const head = el('thead', {}, el('tr', {},
    el('th', { scope: 'col', class: 'rank', text: '#' }),
    el('th', { scope: 'col', class: 'name', text: t(data.settings.kind === 'pairs' ? 'desk.pair' : 'desk.player') }),
    el('th', { scope: 'col', class: 'vp', text: t('desk.vp_short') }),
    el('th', { scope: 'col', class: 'mp', text: t('desk.mp_diff') }),
    el('th', { scope: 'col', class: 'played', text: t(knockout ? 'desk.stage' : 'desk.played') })));
  const rows = (data.standings || []).map((s) => el('tr', {
    'data-entrant': s.entrant, class: s.entrant === mine ? 'mine' : null,
  },
  el('td', { class: 'rank', text: s.rank }),
  // The line's number is drawn by CSS (data-no) so that the cell's text is the name alone.
  el('td', { class: 'name', 'data-no': s.entrant, text: (names.get(s.entrant) || s).name }),
  el('td', { class: 'vp', text: formatNumber(s.vp) }),
  el('td', { class: 'mp' + (s.mp < 0 ? ' neg' : ''), text: s.mp }),
  el('td', { class: 'played', text: knockout ? s.stage : s.played + (s.byes ? ` (+${s.byes})` : '') })));
  const body = el('tbody', {}, rows.length ? rows
    : [el('tr', {}, el('td', { colspan: 5, class: 'empty', text: t('desk.no_entrants') }))]);
  table.replaceChildren(head, body);
}

/** The two lines of a table: [{dir, entrant, name, seats: [[letter, name]]}]. */
function linesOf(data, tb, names) {
  const pairs = data.settings.kind === 'pairs';
  const seats = tb.seats || {};
  const line = (entrant, letters, dir) => ({
    entrant, dir, name: (names.get(entrant) || {}).name || `#${entrant}`,
    seats: letters.filter((l) => seats[l]).map((l) => [l, lineName(seats[l], (names.get(entrant) || {}).bot)]),
  });
  return pairs
    ? [line(tb.first, ['N', 'S'], t('dir.NS')), line(tb.second, ['E', 'W'], t('dir.EW'))]
    : [line(tb.first, ['N'], dirLabel('N')), line(tb.second, ['S'], dirLabel('S'))];
}

/** A table's live state at the room ("deal 2 of 3 · 615 – 120", players connected). */
function liveText(info) {
  if (!info) return '';
  if (info.status === 'over') return t('desk.live_over');
  if (info.status !== 'playing') return t('status.' + info.status);
  const deal = info.deals ? t('table.deals_of', { n: info.deal, of: info.deals }) : t('table.deal', { n: info.deal });
  const humans = (info.seats || []).filter((s) => s.kind === 'human');
  const on = humans.filter((s) => s.connected).length;
  const parts = [deal, (info.totals || []).join(' – ')];
  if (humans.length) parts.push(tn('desk.connected', humans.length, { n: on, of: humans.length }));
  return parts.join(' · ');
}

/**
 * One round: its header and its tables. opts: {current, live (Map room -> table info),
 * director, mine (entrant id to highlight), form(round, table, tb, mode) -> element, correcting (Set)}.
 */
export function roundView(data, r, opts = {}) {
  const names = namesOf(data);
  const done = r.tables.filter((x) => x.result).length;
  const closed = !opts.current || ['closed', 'finished'].includes(data.phase);
  const head = el('div', { class: 'round-head' },
    el('h3', { text: t('desk.round_n', { n: r.number }) }),
    el('span', { class: 'badge ' + (r.online ? 'online' : 'physical'), text: t(r.online ? 'desk.online' : 'desk.physical') }),
    el('span', { class: 'badge ' + (closed ? 'status-over' : 'status-playing'), text: t(closed ? 'desk.closed' : 'desk.in_play') }),
    el('span', { class: 'round-count muted', text: tn('desk.results_in', r.tables.length, { n: done, of: r.tables.length }) }));
  if (!r.online && opts.director) {
    head.append(el('a', {
      class: 'button cards-link', id: opts.current ? 'cards-link' : null, target: '_blank', rel: 'noopener',
      href: `${apiBase(data.tournament)}/cards.html?round=${r.number}`, text: t('desk.print_cards'),
    }));
  }
  const parts = [head];
  if (r.byes && r.byes.length) {
    parts.push(el('p', { class: 'byes muted', text: t('desk.byes', { names: r.byes.map((b) => (names.get(b) || {}).name || b).join(', ') }) }));
  }
  const list = el('ol', { class: 'round-tables' });
  for (const tb of r.tables) list.append(tableView(data, r, tb, names, opts));
  parts.push(list);
  return el('section', { class: 'round', 'data-round': r.number }, parts);
}

function tableView(data, r, tb, names, opts) {
  const res = tb.result;
  const info = tb.room && opts.live ? opts.live.get(tb.room) : null;
  const state = res ? 'result' : r.online ? (info ? info.status : 'playing') : 'waiting';
  const lines = linesOf(data, tb, names);
  const mineHere = opts.mine !== null && opts.mine !== undefined && (tb.first === opts.mine || tb.second === opts.mine);
  const rowHead = el('div', { class: 't-head' },
    el('strong', { class: 't-no', text: t('desk.table_n', { n: tb.table }) }));
  if (tb.room) {
    rowHead.append(el('span', { class: 'spacer' }));
    if (res) rowHead.append(el('a', { class: 'chip-link replay-link', href: `/replay/${enc(tb.room)}`, text: t('desk.replay') }));
    else if (opts.director || mineHere) rowHead.append(el('a', { class: 'chip-link room-link', href: `/table/${enc(tb.room)}`, title: t('desk.room_help'), text: t('desk.room_link', { id: tb.room }) }));
    else if (data.settings.spectators !== false) {
      // Everyone else may watch a table in play when the director allows spectators.
      rowHead.append(el('a', {
        class: 'chip-link watch-link', href: `/table/${enc(tb.room)}?watch=1`, 'data-room': tb.room,
        'aria-label': t('watch.table_aria', { n: tb.table }), text: t('watch.link'),
      }));
    }
  }
  let status = null;
  if (!res && r.online && opts.current) {
    status = el('div', { class: 't-status' }, el('span', { class: 't-live', text: liveText(info) || t('desk.live_playing') }));
  } else if (!res && opts.current) {
    status = el('div', { class: 't-status' }, el('span', { class: 't-live muted', text: t('desk.waiting_result') }));
  }
  const lineRows = lines.map((ln, i) => {
    const mp = res ? (i === 0 ? res.mp_first : res.mp_second) : null;
    const vp = res ? (i === 0 ? res.vp_first : res.vp_second) : null;
    const won = res && res.winner === ln.entrant;
    return el('div', { class: 't-line' + (won ? ' won' : '') + (ln.entrant === opts.mine ? ' mine' : '') },
      el('span', { class: 'dir', text: ln.dir }),
      el('span', { class: 'who' },
        el('span', { class: 'line-no', text: ln.entrant }), ' ',
        el('span', { class: 'line-title', text: ln.name }),
        ln.seats.length > 1 ? el('small', { class: 'seats', text: ln.seats.map(([l, n]) => `${dirLabel(l)} ${n}`).join(' · ') }) : null),
      res ? el('span', { class: 'mp', text: mp }) : null,
      res ? el('span', { class: 'vp', text: t('desk.vp_n', { n: formatNumber(vp) }) }) : null);
  });
  const children = [rowHead, status, el('div', { class: 't-lines' }, lineRows)].filter(Boolean);
  if (!res && tb.absent && tb.absent.length) {
    // Who has not opened the table since its deal began: the director sees the no-shows.
    const who = tb.absent.map((l) => `${dirLabel(l)} ${(tb.seats || {})[l] || ''}`.trim()).join(', ');
    children.push(el('p', { class: 'note absent', 'data-absent': tb.absent.join('') },
      t('desk.absent', { names: who }), ' · ',
      el('span', { class: 'grace-left', 'data-until': tb.grace_until || '', text: graceText(tb.grace_until) })));
  }
  if (res && res.abandoned_by) {
    children.push(el('p', { class: 'note', text: t('desk.abandoned_by', { name: (names.get(res.abandoned_by) || {}).name || res.abandoned_by }) }));
  }
  if (opts.director && opts.form) {
    const key = `${r.number}:${tb.table}`;
    if (!res && opts.current && !r.online) {
      children.push(opts.form(r, tb, lines, 'enter'));
    } else if (res && opts.correcting && opts.correcting.has(key)) {
      children.push(opts.form(r, tb, lines, 'correct'));
    } else if (res && !(data.settings.format === 'knockout' && !opts.current)) {
      children.push(el('button', { type: 'button', class: 'small correct-button', 'data-correct': key, text: t('desk.correct') }));
    } else if (!res && opts.current && r.online) {
      // A table of the room that cannot end (a lost player): the director may enter its MP.
      const more = el('details', { class: 'by-hand', 'data-key': key },
        el('summary', { text: t('desk.enter_by_hand') }), opts.form(r, tb, lines, 'enter'));
      children.push(more);
    }
  }
  return el('li', {
    class: 't-row' + (mineHere ? ' mine' : ''), 'data-table': tb.table, 'data-round': r.number, 'data-state': state,
  }, children);
}

// ---------------------------------------------------------------- the page

const S = {
  id: null,
  token: null,
  data: null,
  live: new Map(),
  correcting: new Set(),
  openByHand: new Set(),
  openRounds: new Set(),
  fresh: new Set(), // entrants registered in this visit (their links are highlighted)
  lastSig: '',
  busy: false,
  polling: false,
};

function idFromPath() {
  const m = location.pathname.match(/^\/desk\/([^/?#]+)/);
  return m ? decodeURIComponent(m[1]) : null;
}

async function init() {
  initI18n();
  S.id = idFromPath();
  if (!S.id) { initHome(); return; }
  // A key handed over in the address (#key=…) is taken in and removed from the address.
  const hash = new URLSearchParams(location.hash.slice(1));
  if (hash.get('key')) {
    saveDirectorKey(S.id, hash.get('key'));
    history.replaceState(null, '', location.pathname + location.search);
  }
  S.token = directorKey(S.id);
  wireOne();
  onLangChange(() => { S.lastSig = ''; renderOne(); });
  await refresh();
  setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
  setInterval(() => tickGraces(), 1000);
}

// ---------------------------------------------------------------- /desk

function initHome() {
  $('#desk-home').hidden = false;
  document.title = t('title.desk');
  $('#tournament-form').addEventListener('submit', createTournament);
  $('#t-format').addEventListener('change', formatHelp);
  $('#t-kind').addEventListener('change', fillGames);
  fillGames();
  onLangChange(() => { formatHelp(); fillGames(); listTournaments(); });
  formatHelp();
  listTournaments();
}

function formatHelp() {
  const f = $('#t-format').value;
  $('#t-format-help').textContent = t('format_help.' + f);
  const rounds = $('#t-rounds');
  if (f === 'knockout') { rounds.value = ''; rounds.disabled = true; } else rounds.disabled = false;
  $('#t-rounds-help').textContent = t(f === 'danish' ? 'desk.rounds_help_danish' : f === 'knockout' ? 'desk.rounds_help_knockout' : 'desk.rounds_help');
}

/** The games a tournament of the chosen kind may play: the presets with a table of 4 in
 * pairs, or of 2 alone (tournament.games_for). */
function fillGames() {
  const sel = $('#t-game');
  const table = $('#t-kind').value === 'pairs' ? [4, 2] : [2, 2];
  const games = FALLBACK_VARIANTS.filter((v) => v.setups.some(([p, l]) => p === table[0] && l === table[1]));
  const current = sel.value || 'italian';
  sel.replaceChildren(...games.map((v) => el('option', { value: v.name, text: variantLabel(v.name) })));
  sel.value = games.some((v) => v.name === current) ? current : games[0].name;
}

async function createTournament(ev) {
  ev.preventDefault();
  const form = $('#tournament-form');
  if (!form.reportValidity()) return;
  const rounds = $('#t-rounds').value.trim();
  const body = {
    name: $('#t-name').value.trim(),
    game: $('#t-game').value,
    format: $('#t-format').value,
    kind: $('#t-kind').value,
    rounds: rounds && !$('#t-rounds').disabled ? Number(rounds) : null,
    deals: Number($('#t-deals').value),
    deal_minutes: Number($('#t-minutes').value),
    move_seconds: Number($('#t-move').value),
    grace_seconds: Math.round(Number($('#t-grace').value) * 60),
    spectators: $('#t-spectators').checked,
    bots: $('#t-bots').checked,
    chat: $('#t-chat').checked,
  };
  $('#t-create').disabled = true;
  $('#create-status').textContent = t('desk.creating');
  try {
    const res = await api('POST', '/api/tournaments', body);
    saveDirectorKey(res.tournament, res.token);
    location.href = res.url || `/desk/${enc(res.tournament)}`;
  } catch (e) {
    $('#create-status').textContent = '';
    toast(refusalText(e), 'error');
    $('#t-create').disabled = false;
  }
}

async function listTournaments() {
  let list = [];
  try { list = (await api('GET', '/api/tournaments')).tournaments || []; } catch (e) {
    $('#all-tournaments').replaceChildren(el('li', { class: 'empty', text: t('lobby.offline', { detail: refusalText(e) }) }));
    return;
  }
  const keys = loadJSON(DESK);
  const item = (x) => el('li', { class: 'table-item', 'data-tournament': x.tournament },
    el('div', { class: 'ti-main' },
      el('strong', { text: x.name }),
      el('span', { class: 'badge', text: t('phase_short.' + x.phase) }),
      el('span', { class: 'muted', text: ` · ${t('desk.n_entrants', { n: x.entrants })}` })),
    el('div', { class: 'ti-actions' },
      el('a', { class: 'button' + (keys[x.tournament] ? ' primary' : ''), href: `/desk/${enc(x.tournament)}`, text: t(keys[x.tournament] ? 'desk.run' : 'desk.view') })));
  const mine = list.filter((x) => keys[x.tournament]).reverse();
  $('#mine-title').hidden = mine.length === 0;
  $('#my-tournaments').replaceChildren(...mine.map(item));
  const others = list.filter((x) => !keys[x.tournament]).reverse();
  $('#all-tournaments').replaceChildren(...(others.length ? others.map(item) : [el('li', { class: 'empty', text: t('desk.none') })]));
}

// ---------------------------------------------------------------- /desk/{id}

function wireOne() {
  $('#desk-main').hidden = false;
  $('#entrant-form').addEventListener('submit', register);
  $('#bot-add').addEventListener('click', addBot);
  $('#pad-button').addEventListener('click', pad);
  $('#start-online').addEventListener('click', () => startRound(true));
  $('#start-physical').addEventListener('click', () => startRound(false));
  $('#close-round').addEventListener('click', closeRound);
  $('#finish').addEventListener('click', finish);
  $('#print-links').addEventListener('click', printLinks);
  $('#copy-key').addEventListener('click', () => copy($('#director-key').value));
  $('#key-form').addEventListener('submit', useKey);
  $('#export-csv').href = `${apiBase(S.id)}/standings.csv`;
  $('#export-csv').setAttribute('download', `standings-${S.id}.csv`);
  $('#export-html').href = `${apiBase(S.id)}/standings.html`;
  const rounds = $('#rounds');
  rounds.addEventListener('submit', submitResult);
  rounds.addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-correct]');
    if (b) { S.correcting.add(b.dataset.correct); renderRounds(true); focusForm(b.dataset.correct); return; }
    const c = ev.target.closest('button[data-cancel]');
    if (c) { S.correcting.delete(c.dataset.cancel); renderRounds(true); }
  });
  rounds.addEventListener('toggle', (ev) => {
    const d = ev.target;
    if (d.matches && d.matches('details.by-hand')) (d.open ? S.openByHand.add(d.dataset.key) : S.openByHand.delete(d.dataset.key));
    if (d.matches && d.matches('details.past-round')) (d.open ? S.openRounds.add(d.dataset.round) : S.openRounds.delete(d.dataset.round));
  }, true);
  window.addEventListener('afterprint', () => document.body.classList.remove('printing-links'));
}

function focusForm(key) {
  const [r, tb] = key.split(':');
  const input = document.querySelector(`#rounds form[data-round="${r}"][data-table="${tb}"] input[name=mp_first]`);
  if (input) input.focus();
}

async function refresh() {
  if (S.polling) return;
  S.polling = true;
  try {
    const data = await api('GET', apiBase(S.id));
    await readLive(data);
    apply(data);
    $('#poll-status').textContent = t('lobby.refreshed', { time: formatTime() });
    $('#poll-status').dataset.state = 'ok';
  } catch (e) {
    if (e.status === 404) {
      $('#desk-main').hidden = true;
      $('#desk-missing').hidden = false;
      $('#missing-text').textContent = refusalText(e);
    }
    $('#poll-status').textContent = t('lobby.offline', { detail: refusalText(e) });
    $('#poll-status').dataset.state = 'lost';
  } finally {
    S.polling = false;
  }
}

/** The room's tables of the round in play, for their live state (GET /api/tables). */
async function readLive(data) {
  const r = data.rounds && data.rounds[data.rounds.length - 1];
  const open = r && r.online && ['seating', 'playing'].includes(data.phase) && r.tables.some((x) => x.room && !x.result);
  if (!open) { S.live = new Map(); return; }
  try {
    const ids = r.tables.filter((x) => x.room).map((x) => encodeURIComponent(x.room));
    const got = await api('GET', `/api/tables?ids=${ids.join(',')}`);
    S.live = new Map((got.tables || []).map((x) => [x.table, x]));
  } catch { /* keep the last state */ }
}

function apply(data, force = false) {
  S.data = data;
  renderOne(force);
}

function isDirector() { return Boolean(S.token); }

function renderOne(force = true) {
  const d = S.data;
  if (!d) return;
  // A poll that brings nothing new leaves the page alone (a selection or a half-typed name stays).
  const sig = JSON.stringify([d, isDirector(), [...S.fresh]]);
  if (!force && sig === S.dataSig) { renderRounds(false); return; }
  S.dataSig = sig;
  const s = d.settings;
  document.title = `${s.name} · ${t('desk.title')}`;
  $('#head-name').textContent = s.name;
  $('#t-title').textContent = s.name;
  const phase = $('#t-phase');
  phase.textContent = phaseText(d);
  phase.dataset.phase = d.phase;
  $('#t-settings').textContent = settingsText(s);
  $('#t-progress').textContent = progressText(d) + (d.phase === 'finished' && d.standings.length ? ` · ${t('desk.champion', { name: namesOf(d).get(d.standings[0].entrant).name })}` : '');
  const director = isDirector();
  document.body.classList.toggle('director', director);
  $('#readonly-note').hidden = director;
  $('#key-summary').textContent = t(director ? 'desk.key_show' : 'desk.key_enter');
  $('#key-show').hidden = !director;
  $('#key-form').hidden = director;
  if (director) $('#director-key').value = S.token;
  renderEntrants();
  renderLinks();
  renderControls();
  renderRounds(false);
  fillStandings($('#standings'), d);
}

function renderEntrants() {
  const d = S.data;
  const pairs = d.settings.kind === 'pairs';
  const registering = d.phase === 'registration';
  $('#entrant-count').textContent = d.entrants.length;
  $('#register-box').hidden = !(isDirector() && registering);
  // The name inputs: one per player of a line; kept while the kind is the same.
  const box = $('#entrant-names');
  const want = pairs ? 2 : 1;
  if (box.children.length !== want) {
    box.replaceChildren(...Array.from({ length: want }, (_, i) => el('div', { class: 'field' },
      el('label', { for: `entrant-name-${i}`, text: t('desk.player_n', { n: i + 1 }) }),
      el('input', { type: 'text', id: `entrant-name-${i}`, name: `player${i}`, maxlength: 40, required: true, autocomplete: 'off' }))));
  } else {
    box.querySelectorAll('label').forEach((l, i) => { l.textContent = t('desk.player_n', { n: i + 1 }); });
  }
  $('#entrant-legend').textContent = t(pairs ? 'desk.new_pair' : 'desk.new_player');
  const padSize = $('#pad-size');
  padSize.min = String(Math.max(2, d.entrants.length));
  const names = namesOf(d);
  const list = $('#entrants');
  list.replaceChildren(...(d.entrants.length ? d.entrants.map((e) => el('li', { 'data-entrant': e.id, class: e.bot ? 'bot' : 'human' },
    el('span', { class: 'line-no', text: e.id }),
    el('span', { class: 'e-name', text: (names.get(e.id) || {}).name }),
    pairs && !e.bot ? el('small', { class: 'muted', text: e.players.join(', ') }) : null,
    e.bot ? el('span', { class: 'badge bot-badge', text: t('desk.bot_badge', { level: t('bot_short.' + e.bot) }) }) : null))
    : [el('li', { class: 'empty', text: t('desk.no_entrants') })]));
  $('#entrants-panel').classList.toggle('compact', !registering);
}

function renderLinks() {
  const links = loadLinks(S.id);
  const d = S.data;
  const entries = Object.entries(links).sort((a, b) => Number(a[0]) - Number(b[0]));
  $('#links-panel').hidden = !(isDirector() && entries.length);
  const names = namesOf(d);
  const items = [];
  for (const [entrant, players] of entries) {
    players.forEach((p, i) => {
      const url = playerUrl(S.id, p.token);
      items.push(el('li', {
        'data-entrant': entrant, 'data-player': i, class: S.fresh.has(Number(entrant)) ? 'fresh' : null,
      },
      el('div', { class: 'pl-who' },
        el('span', { class: 'line-no', text: entrant }), ' ',
        el('strong', { text: p.name }),
        (names.get(Number(entrant)) || {}).players && (names.get(Number(entrant)).players.length > 1)
          ? el('small', { class: 'muted', text: ` · ${names.get(Number(entrant)).name}` }) : null),
      el('div', { class: 'pl-link' },
        el('a', { class: 'player-link', href: url, target: '_blank', rel: 'noopener', text: url }),
        el('button', { type: 'button', class: 'small', 'data-copy': url, text: t('desk.copy'), onclick: () => copy(url) }))));
    });
  }
  $('#player-links').replaceChildren(...items);
}

function renderControls() {
  const d = S.data;
  $('#round-controls').hidden = !isDirector();
  const r = d.rounds[d.rounds.length - 1];
  const missing = r ? r.tables.filter((x) => !x.result).length : 0;
  const canStart = (d.phase === 'registration' && d.entrants.length >= 2) || d.phase === 'closed';
  $('#start-online').disabled = S.busy || !canStart;
  $('#start-physical').disabled = S.busy || !canStart;
  $('#close-round').disabled = S.busy || !['seating', 'playing'].includes(d.phase) || missing > 0;
  $('#finish').disabled = S.busy || d.phase !== 'closed' || d.settings.format === 'knockout';
  const next = d.rounds.length + 1;
  $('#start-online').textContent = t('desk.start_online_n', { n: next });
  $('#start-physical').textContent = t('desk.start_physical_n', { n: next });
  let status = '';
  if (d.phase === 'registration') status = d.entrants.length >= 2 ? t('desk.ready', { n: d.entrants.length }) : t('desk.need_two');
  else if (['seating', 'playing'].includes(d.phase)) status = missing ? t('desk.missing', { n: missing }) : t('desk.all_in');
  else if (d.phase === 'closed') status = t('desk.closed_next');
  else if (d.phase === 'finished') status = t('desk.finished');
  $('#round-status').textContent = status;
}

/** Draw the rounds; the values typed in the result forms and the focus survive a redraw. */
function renderRounds(force) {
  const d = S.data;
  const live = [...S.live.entries()].map(([k, v]) => [k, v.status, v.deal, v.totals, (v.seats || []).map((s) => s.connected)]);
  const sig = JSON.stringify([d.rounds, d.phase, d.entrants.length, live, [...S.correcting], isDirector()]);
  if (!force && sig === S.lastSig) return;
  S.lastSig = sig;
  const box = $('#rounds');
  // Keep what is typed.
  const typed = new Map();
  for (const input of box.querySelectorAll('form[data-table] [name]')) {
    const f = input.form;
    typed.set(`${f.dataset.round}:${f.dataset.table}:${f.dataset.mode}:${input.name}`, input.value);
  }
  const active = document.activeElement;
  let focusKey = null; let caret = null;
  if (active && box.contains(active) && active.form && active.name) {
    const f = active.form;
    focusKey = `${f.dataset.round}:${f.dataset.table}:${f.dataset.mode}:${active.name}`;
    try { caret = [active.selectionStart, active.selectionEnd]; } catch { caret = null; }
  }
  const opts = { live: S.live, director: isDirector(), form: resultForm, correcting: S.correcting };
  const rounds = [...d.rounds].reverse();
  const views = rounds.map((r, i) => {
    const view = roundView(d, r, { ...opts, current: i === 0 });
    if (i === 0) return view;
    const det = el('details', { class: 'past-round', 'data-round': r.number, open: S.openRounds.has(String(r.number)) || null },
      el('summary', { text: `${t('desk.round_n', { n: r.number })} · ${tn('desk.results_in', r.tables.length, { n: r.tables.filter((x) => x.result).length, of: r.tables.length })}` }), view);
    return det;
  });
  box.replaceChildren(...(views.length ? views : [el('p', { class: 'muted empty', text: t('desk.no_round_yet') })]));
  for (const det of box.querySelectorAll('details.by-hand')) det.open = S.openByHand.has(det.dataset.key);
  for (const input of box.querySelectorAll('form[data-table] [name]')) {
    const f = input.form;
    const k = `${f.dataset.round}:${f.dataset.table}:${f.dataset.mode}:${input.name}`;
    if (typed.has(k)) input.value = typed.get(k);
    if (k === focusKey) {
      input.focus();
      if (caret) { try { input.setSelectionRange(caret[0], caret[1]); } catch { /* number inputs have no caret */ } }
    }
  }
}

/** The MP form of a table: mode "enter" (a new result) or "correct" (replace one). */
function resultForm(r, tb, lines, mode) {
  const res = tb.result;
  const knockout = S.data.settings.format === 'knockout';
  const key = `${r.number}:${tb.table}`;
  const mpField = (name, ln, value) => el('label', { class: 'mp-field' },
    el('span', { class: 'mp-label', text: `${ln.dir} · ${ln.name}` }),
    el('input', {
      type: 'number', name, step: 1, required: true, value: value ?? null,
      'aria-label': t('desk.mp_of', { name: ln.name }), placeholder: t('desk.mp_placeholder'),
    }));
  const lineOptions = (name, label) => el('label', { class: 'mini-field' },
    el('span', { text: label }),
    el('select', { name },
      el('option', { value: '', text: '—' }),
      ...lines.map((ln) => el('option', {
        value: ln.entrant, text: `${ln.entrant} ${ln.name}`,
        selected: res && res[name] === ln.entrant ? true : null,
      }))));
  const extra = [lineOptions('abandoned_by', t('desk.abandoned'))];
  if (knockout) extra.push(lineOptions('last_mover', t('desk.last_mover')));
  const hasExtra = res && (res.abandoned_by || res.last_mover);
  return el('form', {
    class: 'mp-form ' + mode, 'data-table': tb.table, 'data-round': r.number, 'data-mode': mode, novalidate: null,
  },
  el('div', { class: 'mp-fields' },
    mpField('mp_first', lines[0], mode === 'correct' ? res.mp_first : null),
    mpField('mp_second', lines[1], mode === 'correct' ? res.mp_second : null)),
  el('details', { class: 'mp-more', open: hasExtra ? true : null },
    el('summary', { text: t(knockout ? 'desk.more_knockout' : 'desk.more') }),
    el('div', { class: 'mp-extra' }, extra)),
  el('div', { class: 'mp-buttons' },
    el('button', { type: 'submit', class: 'primary', text: t(mode === 'correct' ? 'desk.save_correction' : 'desk.enter') }),
    mode === 'correct' ? el('button', { type: 'button', 'data-cancel': key, text: t('lobby.cancel') }) : null));
}

async function submitResult(ev) {
  const form = ev.target.closest('form[data-table]');
  if (!form) return;
  ev.preventDefault();
  if (!form.reportValidity()) return;
  const num = (name) => {
    const x = form.elements[name];
    return x && x.value !== '' ? Number(x.value) : null;
  };
  const mode = form.dataset.mode;
  const body = {
    token: S.token,
    table: Number(form.dataset.table),
    mp_first: num('mp_first'),
    mp_second: num('mp_second'),
    abandoned_by: num('abandoned_by'),
    last_mover: num('last_mover'),
    correct: mode === 'correct',
    round: mode === 'correct' ? Number(form.dataset.round) : null,
  };
  if (!Number.isInteger(body.mp_first) || !Number.isInteger(body.mp_second)) {
    toast(t('desk.mp_whole'), 'error');
    return;
  }
  for (const b of form.querySelectorAll('button')) b.disabled = true;
  const done = await act('results', body, t(mode === 'correct' ? 'desk.corrected' : 'desk.entered', { n: body.table }));
  if (done) {
    S.correcting.delete(`${form.dataset.round}:${form.dataset.table}`);
    renderRounds(true);
    const next = document.querySelector('#rounds form[data-mode="enter"] input[name=mp_first]');
    if (next && mode === 'enter' && !next.closest('details.by-hand')) next.focus();
  } else {
    for (const b of form.querySelectorAll('button')) b.disabled = false;
  }
}

/** POST a director's action; on success the answer (the public tournament) is drawn. */
async function act(path, body, done) {
  S.busy = true;
  renderControls();
  try {
    const res = await api('POST', `${apiBase(S.id)}/${path}`, { token: S.token, ...body });
    if (res && res.tournament && res.settings) {
      await readLive(res);
      apply(res);
    } else {
      await refresh();
    }
    if (done) toast(done, 'info', 3000);
    return res || true;
  } catch (e) {
    if (e.status === 403 && /director/.test(e.message)) {
      toast(t('desk.key_refused'), 'error');
      saveDirectorKey(S.id, null);
      S.token = null;
      renderOne();
    } else {
      toast(refusalText(e), 'error', 7000);
    }
    return null;
  } finally {
    S.busy = false;
    if (S.data) renderControls();
  }
}

async function register(ev) {
  ev.preventDefault();
  const form = $('#entrant-form');
  if (!form.reportValidity()) return;
  const inputs = [...form.querySelectorAll('#entrant-names input')];
  const players = inputs.map((i) => i.value.trim());
  if (players.some((p) => !p)) { toast(t('desk.names_needed'), 'error'); return; }
  $('#entrant-add').disabled = true;
  try {
    const res = await api('POST', `${apiBase(S.id)}/entrants`, { token: S.token, players });
    saveLinks(S.id, res.entrant, res.players, res.tokens || []);
    S.fresh.add(res.entrant);
    inputs.forEach((i) => { i.value = ''; });
    toast(t('desk.registered', { name: res.players.join(' / ') }), 'info', 3000);
    await refresh();
    const li = document.querySelector(`#player-links li[data-entrant="${res.entrant}"]`);
    if (li) li.scrollIntoView({ block: 'nearest' });
    inputs[0].focus();
  } catch (e) {
    if (e.status === 403) { toast(t('desk.key_refused'), 'error'); } else toast(refusalText(e), 'error', 7000);
  } finally {
    $('#entrant-add').disabled = false;
  }
}

// A bot line is the field filled up to one more line (POST …/pad): the server names it
// ("Expert 5") and it never clashes with another bot's name.
async function addBot() {
  await act('pad', { size: S.data.entrants.length + 1, level: $('#bot-level').value },
    t('desk.bot_added'));
}

async function pad() {
  const size = Number($('#pad-size').value);
  if (!Number.isInteger(size) || size < 2) { $('#pad-size').reportValidity(); return; }
  const before = S.data.entrants.length;
  const res = await act('pad', { size, level: $('#bot-level').value }, null);
  if (res) toast(t('desk.padded', { n: S.data.entrants.length - before, size }), 'info', 3000);
}

async function startRound(online) {
  const n = S.data.rounds.length + 1;
  $('#round-status').textContent = t('desk.starting', { n });
  await act('rounds', { online }, t(online ? 'desk.started_online' : 'desk.started_physical', { n }));
}

async function closeRound() {
  await act('close', {}, t('desk.round_closed', { n: S.data.rounds.length }));
}

async function finish() {
  await act('finish', {}, t('desk.finished'));
}

async function useKey(ev) {
  ev.preventDefault();
  const key = $('#key-input').value.trim();
  if (!key) return;
  // A harmless probe: a correction of a round that does not exist is refused with 403
  // for a wrong key and with another error (409) for the director's.
  try {
    await api('POST', `${apiBase(S.id)}/results`, { token: key, table: 1, mp_first: 0, mp_second: 0, correct: true, round: 99999 });
  } catch (e) {
    if (e.status === 403) { toast(t('desk.key_refused'), 'error'); return; }
  }
  saveDirectorKey(S.id, key);
  S.token = key;
  $('#key-input').value = '';
  $('#key-box').open = false;
  S.lastSig = '';
  renderOne();
  toast(t('desk.key_ok'), 'info', 3000);
}

async function copy(text) {
  try {
    await navigator.clipboard.writeText(text);
    toast(t('table.copied'), 'info', 1500);
  } catch {
    window.prompt(t('desk.copy'), text);
  }
}

function printLinks() {
  document.body.classList.add('printing-links');
  window.print();
  setTimeout(() => document.body.classList.remove('printing-links'), 1000);
}

if (document.body && document.body.classList.contains('desk-page')) init();
