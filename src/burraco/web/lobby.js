// The lobby: create a table, list the open ones, join one.

import { t, initI18n, onLangChange, formatTime, refusalText } from './i18n.js';
import {
  el, $, api, me, loadSeats, saveSeat, savedName, saveName, toast,
  FALLBACK_VARIANTS, setupLabel, variantLabel, seatLabel,
} from './common.js';
import { gameKey } from './rated.js';

const REFRESH_MS = 4000;
let variants = FALLBACK_VARIANTS;
let lastTables = [];
let joining = null; // the TableInfo of the join dialog
let refreshedAt = null; // when the list was last read

/**
 * Read GET /api/variants defensively: the protocol only says "the presets
 * with their table setups". Accepted: a list, {variants: list|object} or an
 * object keyed by name; setups as [players, lines] or {players, lines}.
 */
function readVariants(data) {
  let items = data;
  if (items && !Array.isArray(items) && items.variants) items = items.variants;
  if (items && !Array.isArray(items) && typeof items === 'object') {
    items = Object.entries(items).map(([name, v]) => ({ name, ...(v || {}) }));
  }
  if (!Array.isArray(items)) return null;
  const out = [];
  for (const it of items) {
    const name = it && (it.name || it.variant || it.preset);
    if (!name) continue;
    const fb = FALLBACK_VARIANTS.find((f) => f.name === name) || {};
    const raw = it.setups || it.tables || [];
    const setups = raw
      .map((s) => (Array.isArray(s) ? [s[0], s[1]] : [s.players, s.lines]))
      .filter(([p, l]) => Number.isInteger(p) && Number.isInteger(l));
    out.push({
      name,
      setups: setups.length ? setups : fb.setups || [[2, 2]],
      deals: it.deals !== undefined ? it.deals : fb.deals ?? null,
      target: it.target !== undefined ? it.target : fb.target ?? null,
    });
  }
  return out.length ? out : null;
}

function fillVariants() {
  const sel = $('#variant');
  const current = sel.value || 'italian';
  sel.replaceChildren(...variants.map((v) => el('option', { value: v.name, text: variantLabel(v.name) })));
  sel.value = variants.some((v) => v.name === current) ? current : variants[0].name;
  fillSetups(false);
}

function fillSetups(resetLength = true) {
  const v = variants.find((x) => x.name === $('#variant').value) || variants[0];
  const sel = $('#setup');
  const current = sel.value;
  sel.replaceChildren(...v.setups.map(([p, l]) => el('option', { value: `${p}:${l}`, text: setupLabel(p, l) })));
  // Default to the 4-in-pairs table when there is one (the common club game).
  if (v.setups.some(([p, l]) => `${p}:${l}` === current)) sel.value = current;
  else if (v.setups.some(([p, l]) => p === 4 && l === 2)) sel.value = '4:2';
  if (resetLength) {
    if (v.deals) { $('#by-deals').checked = true; $('#deals').value = v.deals; }
    else if (v.target) { $('#by-target').checked = true; $('#target').value = v.target; }
  }
  updateOptions();
}

/** The bots' ratings in the chosen game, next to their levels: a player reads how strong
 * each is before choosing (the leaderboard's figures, on the players' scale). */
let botRatings = {};
async function showBotRatings() {
  const [players, lines] = $('#setup').value.split(':').map(Number);
  const key = gameKey($('#variant').value, players, lines);
  try {
    const board = await api('GET', `/api/leaderboard/${encodeURIComponent(key)}?kind=bot`);
    botRatings = Object.fromEntries((board.bots || []).map((b) => [b.name, b.rating]));
  } catch {
    botRatings = {};
  }
  labelBots();
}

function labelBots() {
  for (const option of $('#bot').options) {
    const rating = botRatings[option.value];
    option.textContent = rating ? t('board.bot_option', { level: t(`bot.${option.value}`), rating }) : t(`bot.${option.value}`);
  }
}

function updateOptions() {
  const [p, l] = $('#setup').value.split(':').map(Number);
  // Open hands only mean something when partners share a line.
  const pairs = p > l;
  $('#open-hands').disabled = !pairs;
  if (!pairs) $('#open-hands').checked = false;
  const byDeals = $('#by-deals').checked;
  $('#deals').disabled = !byDeals;
  $('#target').disabled = byDeals;
}

async function loadVariants() {
  try {
    const got = readVariants(await api('GET', '/api/variants'));
    if (got) variants = got;
  } catch { /* keep the built-in presets */ }
  fillFilters();
  // The player may have chosen already: the room's list keeps their game, table and length.
  fillVariants();
}

/** A registered player plays under the account's name, and may make a rated table. */
async function showAccount() {
  const { user } = await me();
  $('#rated-field').hidden = !user;
  if (user) {
    for (const input of [$('#name'), $('#join-name')]) {
      input.value = user.name;
      input.readOnly = true;
    }
  }
}

async function createTable(ev) {
  ev.preventDefault();
  const form = $('#create-form');
  if (!form.reportValidity()) return;
  const [players, lines] = $('#setup').value.split(':').map(Number);
  const byDeals = $('#by-deals').checked;
  const name = $('#name').value.trim();
  const body = {
    variant: $('#variant').value,
    players,
    lines,
    deals: byDeals ? Number($('#deals').value) : null,
    target: byDeals ? null : Number($('#target').value),
    move_seconds: Number($('#move-seconds').value),
    bot: $('#bot').value,
    open_hands: $('#open-hands').checked,
    takeover: $('#takeover').checked,
    rated: $('#rated').checked,
    watchable: $('#watchable').checked,
    watch_delay: Number($('#watch-delay').value),
    chat: $('#chat').checked,
    name,
  };
  saveName(name);
  $('#create').disabled = true;
  $('#create-status').textContent = t('lobby.creating');
  try {
    const res = await api('POST', '/api/tables', body);
    saveSeat(res.table, res.seat, res.token);
    location.href = res.url || `/table/${encodeURIComponent(res.table)}`;
  } catch (e) {
    $('#create-status').textContent = '';
    toast(refusalText(e), 'error');
    $('#create').disabled = false;
  }
}

function seatsText(info) {
  return (info.seats || []).map((s) => (s.kind === 'empty' ? `(${t('seat.empty')})` : seatLabel(s) || t(`seat.${s.kind}`))).join(', ');
}

function tableItem(info, mine) {
  const free = (info.seats || []).filter((s) => s.kind === 'empty').length;
  const length = info.deals
    ? t('lobby.n_deals', { n: info.deals })
    : t('lobby.to_target', { n: info.target });
  const actions = [];
  if (mine) {
    actions.push(el('a', { class: 'button primary', href: `/table/${encodeURIComponent(info.table)}`, text: t('lobby.rejoin') }));
  } else if (free > 0 && info.status === 'waiting') {
    actions.push(el('button', {
      type: 'button', class: 'primary', 'data-table': info.table, text: t('lobby.join'),
      onclick: () => openJoin(info),
    }));
  }
  return el('li', { class: 'table-item', 'data-table': info.table, 'data-status': info.status },
    el('div', { class: 'ti-main' },
      el('strong', { text: variantLabel(info.variant) }),
      el('span', { class: 'muted', text: ` · ${setupLabel(info.players, info.lines)} · ${length}` }),
      el('span', { class: `badge status-${info.status}`, text: t(`status.${info.status}`) }),
      info.rated ? el('span', { class: 'badge rated', text: t('filter.rated_badge') }) : null),
    el('div', { class: 'ti-seats', text: seatsText(info) }),
    el('div', { class: 'ti-actions' }, actions));
}

/** The list's filters: game, players, rated, a free seat (empty: any). */
function fillFilters() {
  const game = $('#filter-variant');
  const players = $('#filter-players');
  const [g, p] = [game.value, players.value];
  game.replaceChildren(el('option', { value: '', text: t('filter.any_game') }),
    ...variants.map((v) => el('option', { value: v.name, text: variantLabel(v.name) })));
  players.replaceChildren(el('option', { value: '', text: t('filter.any_players') }),
    ...[2, 3, 4, 5, 6].map((n) => el('option', { value: String(n), text: t('filter.n_players', { n }) })));
  game.value = g;
  players.value = p;
}

function filterQuery() {
  const q = new URLSearchParams();
  for (const [key, id] of [['variant', '#filter-variant'], ['players', '#filter-players'], ['rated', '#filter-rated']]) {
    if ($(id).value) q.set(key, $(id).value);
  }
  if ($('#filter-free').checked) q.set('free', 'true');
  return q.toString();
}

function renderTables() {
  const mine = loadSeats();
  const list = $('#tables');
  const open = lastTables.filter((x) => !mine[x.table]);
  const none = filterQuery() ? t('filter.none') : t('lobby.no_tables');
  list.replaceChildren(...(open.length ? open.map((x) => tableItem(x, false)) : [el('li', { class: 'empty', text: none })]));
  const my = lastTables.filter((x) => mine[x.table]);
  $('#mine-title').hidden = my.length === 0;
  $('#my-tables').replaceChildren(...my.map((x) => tableItem(x, true)));
}

let refreshes = 0; // the latest refresh wins (a filter changed while one was on its way)

async function refreshTables() {
  const mine = ++refreshes;
  try {
    // The lobby's first page of open tables, and this browser's own tables wherever they are.
    const ids = Object.keys(loadSeats()).slice(-50);
    const [data, own] = await Promise.all([
      api('GET', `/api/tables${filterQuery() ? `?${filterQuery()}` : ''}`),
      ids.length ? api('GET', `/api/tables?ids=${ids.map(encodeURIComponent).join(',')}`) : { tables: [] },
    ]);
    if (mine !== refreshes) return;
    const listed = (data && data.tables) || [];
    const seen = new Set(listed.map((x) => x.table));
    lastTables = listed.concat(((own && own.tables) || []).filter((x) => !seen.has(x.table) && ['waiting', 'playing'].includes(x.status)));
    refreshedAt = new Date();
    showRefreshed();
    renderTables();
  } catch (e) {
    refreshedAt = null;
    $('#tables-status').textContent = t('lobby.offline', { detail: refusalText(e) });
  }
}

function showRefreshed() {
  if (refreshedAt) $('#tables-status').textContent = t('lobby.refreshed', { time: formatTime(refreshedAt) });
}

function openJoin(info) {
  joining = info;
  $('#join-title').textContent = t('lobby.join_title', { table: info.table });
  $('#join-name').value = $('#name').value.trim() || savedName();
  const free = info.seats.filter((s) => s.kind === 'empty');
  $('#join-seat').replaceChildren(
    el('option', { value: '', text: t('lobby.any_seat') }),
    ...free.map((s) => el('option', { value: s.seat, text: t('seat.n', { n: s.seat + 1 }) })));
  $('#join-status').textContent = '';
  $('#join-dialog').showModal();
  $('#join-name').focus();
}

async function join(ev) {
  ev.preventDefault();
  if (!joining) return;
  const name = $('#join-name').value.trim();
  if (!name) { $('#join-name').reportValidity(); return; }
  saveName(name);
  const seatValue = $('#join-seat').value;
  try {
    const res = await api('POST', `/api/tables/${encodeURIComponent(joining.table)}/join`,
      { name, seat: seatValue === '' ? null : Number(seatValue) });
    saveSeat(res.table, res.seat, res.token);
    location.href = res.url || `/table/${encodeURIComponent(res.table)}`;
  } catch (e) {
    $('#join-status').textContent = refusalText(e);
  }
}

/** A first deal with the coach: Italian Burraco, two players, against a bot, no clock. */
async function learn() {
  const name = $('#name').value.trim() || savedName() || t('learn.player');
  $('#learn').disabled = true;
  try {
    const body = { variant: 'italian', players: 2, lines: 2, deals: 1, target: null, move_seconds: 0, bot: 'greedy', name };
    const res = await api('POST', '/api/tables', body);
    saveSeat(res.table, res.seat, res.token);
    await api('POST', `/api/tables/${encodeURIComponent(res.table)}/start`, { token: res.token });
    location.href = `/table/${encodeURIComponent(res.table)}?guide=1`;
  } catch (e) {
    toast(refusalText(e), 'error');
    $('#learn').disabled = false;
  }
}

function init() {
  initI18n();
  $('#learn').addEventListener('click', learn);
  $('#name').value = savedName();
  showAccount();
  $('#variant').addEventListener('change', () => fillSetups(true));
  $('#setup').addEventListener('change', () => { updateOptions(); showBotRatings(); });
  $('#variant').addEventListener('change', showBotRatings);
  for (const r of document.querySelectorAll('input[name=length]')) r.addEventListener('change', updateOptions);
  $('#create-form').addEventListener('submit', createTable);
  // Disabled in the page until their handlers are here (quick.js says why).
  $('#create').disabled = false;
  $('#learn').disabled = false;
  $('#join-form').addEventListener('submit', join);
  $('#join-cancel').addEventListener('click', () => $('#join-dialog').close());
  onLangChange(() => { fillVariants(); renderTables(); showRefreshed(); labelBots(); });
  onLangChange(fillFilters);
  $('#filters').addEventListener('change', refreshTables);
  $('#filters').addEventListener('submit', (ev) => ev.preventDefault());
  fillFilters();
  fillVariants();
  fillSetups(true);
  showBotRatings();
  // The form is ready once the room's games are in (tests wait for it; so may a player's
  // quick first click, which the disabled buttons hold until the handlers are here).
  loadVariants().then(() => { document.body.dataset.lobbyReady = 'true'; });
  refreshTables();
  setInterval(() => { if (!document.hidden) refreshTables(); }, REFRESH_MS);
}

init();
