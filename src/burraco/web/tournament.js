// A player's page of a tournament: /tournament/{id}?player=TOKEN.
//
// The player's token (handed out by the director) is kept in localStorage
// "burraco.players" = {tournamentId: token} and taken out of the address.
// GET /api/tournaments/{id}/me gives this round's table and seat, the deal
// clock and the past boards; the "Go to your table" link first stores
// {seat, token} for that room table in "burraco.seats", so the table page
// opens the player's own seat. Without a token: the public standings and rounds.

import { t, tn, initI18n, onLangChange, formatTime, formatNumber, refusalText } from './i18n.js';
import { el, $, api, saveSeat } from './common.js';
import {
  apiBase, namesOf, phaseText, settingsText, progressText, fillStandings, roundView, seatDir, dirLabel,
} from './desk.js';

const PLAYERS = 'burraco.players';
const POLL_MS = 5000;
const enc = encodeURIComponent;

const P = { id: null, token: null, me: null, data: null, polling: false, openRounds: new Set(), sig: '' };

function loadPlayers() {
  try { return JSON.parse(localStorage.getItem(PLAYERS) || '{}') || {}; } catch { return {}; }
}
function savePlayer(id, token) {
  const all = loadPlayers();
  if (token) all[id] = token; else delete all[id];
  try { localStorage.setItem(PLAYERS, JSON.stringify(all)); } catch { /* ignore */ }
}

function init() {
  initI18n();
  const m = location.pathname.match(/^\/tournament\/([^/?#]+)/);
  P.id = m ? decodeURIComponent(m[1]) : new URLSearchParams(location.search).get('id');
  const params = new URLSearchParams(location.search);
  const given = params.get('player');
  if (given) {
    savePlayer(P.id, given);
    // The link is a secret: keep it off the address bar (and out of shared screenshots).
    params.delete('player');
    const rest = params.toString();
    history.replaceState(null, '', location.pathname + (rest ? `?${rest}` : '') + location.hash);
  }
  P.token = loadPlayers()[P.id] || null;
  $('#export-html').href = `${apiBase(P.id)}/standings.html`;
  $('#go-table').addEventListener('click', goToTable);
  $('#rounds').addEventListener('toggle', (ev) => {
    const d = ev.target;
    if (d.matches && d.matches('details.past-round')) (d.open ? P.openRounds.add(d.dataset.round) : P.openRounds.delete(d.dataset.round));
  }, true);
  onLangChange(() => { P.sig = ''; render(); });
  refresh();
  setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
  setInterval(tickClock, 1000);
}

async function refresh() {
  if (P.polling) return;
  P.polling = true;
  try {
    const [data, me] = await Promise.all([
      api('GET', apiBase(P.id)),
      P.token ? api('GET', `${apiBase(P.id)}/me?token=${enc(P.token)}`).catch((e) => ({ error: e })) : null,
    ]);
    P.data = data;
    if (me && me.error) {
      if (me.error.status === 403) {
        $('#token-error').textContent = t('tour.bad_token');
        $('#token-error').hidden = false;
        savePlayer(P.id, null);
        P.token = null;
      }
      P.me = null;
    } else {
      P.me = me;
    }
    render();
    $('#poll-status').textContent = t('lobby.refreshed', { time: formatTime() });
    $('#poll-status').dataset.state = 'ok';
  } catch (e) {
    $('#poll-status').textContent = t('lobby.offline', { detail: refusalText(e) });
    $('#poll-status').dataset.state = 'lost';
  } finally {
    P.polling = false;
  }
}

function myName() {
  const me = P.me;
  const e = me && P.data.entrants.find((x) => x.id === me.entrant);
  return e ? e.players[me.player] || e.players[0] : '';
}

function render() {
  const d = P.data;
  if (!d) return;
  const s = d.settings;
  document.title = `${s.name} · ${t('tour.title')}`;
  $('#head-name').textContent = s.name;
  $('#t-title').textContent = s.name;
  $('#t-phase').textContent = phaseText(d);
  $('#t-phase').dataset.phase = d.phase;
  $('#t-settings').textContent = `${settingsText(s)} · ${progressText(d)}`;
  const me = P.me;
  const names = namesOf(d);
  document.body.classList.toggle('has-player', Boolean(me));
  if (me) {
    const line = names.get(me.entrant) || { name: '' };
    $('#player-name').hidden = false;
    $('#player-name').replaceChildren(
      t('tour.you_are', { name: myName() }), ' ',
      el('span', { class: 'line-no', text: me.entrant }), ' ',
      el('strong', { text: line.name }));
  } else {
    $('#player-name').hidden = true;
  }
  renderMyTable();
  renderBoards();
  fillStandings($('#standings'), d, { mine: me ? me.entrant : null });
  renderRounds();
  tickClock();
}

function renderMyTable() {
  const d = P.data;
  const me = P.me;
  const box = $('#my-table');
  const go = $('#go-table');
  box.hidden = !me;
  go.hidden = true;
  if (!me) return;
  const names = namesOf(d);
  const body = [];
  const cur = me.current;
  const last = d.rounds[d.rounds.length - 1];
  const standing = d.standings.find((x) => x.entrant === me.entrant);
  box.dataset.state = 'none';
  if (d.phase === 'registration') {
    body.push(el('p', { class: 'big-note', text: t('tour.not_started') }));
  } else if (d.phase === 'finished') {
    box.dataset.state = 'finished';
    body.push(el('p', { class: 'big-note', text: t('tour.finished', { rank: standing ? standing.rank : '?', vp: formatNumber(standing ? standing.vp : 0) }) }));
  } else if (cur && !cur.result) {
    box.dataset.state = cur.room ? 'online' : 'physical';
    const r = d.rounds.find((x) => x.number === cur.round);
    const tb = r && r.tables.find((x) => x.table === cur.table);
    let dir = null;
    if (cur.room && cur.seat !== null && cur.seat !== undefined) dir = seatDir(d.settings.kind, cur.seat);
    else if (tb) dir = Object.keys(tb.seats || {}).find((l) => tb.seats[l] === myName()) || null;
    body.push(el('p', { class: 'where' },
      el('span', { class: 'where-round', text: t('desk.round_n', { n: cur.round }) }),
      el('span', { class: 'where-table', text: t('desk.table_n', { n: cur.table }) }),
      dir ? el('span', { class: 'where-seat', text: t('tour.seat', { dir: dirLabel(dir) }) }) : null));
    if (tb) {
      const mineFirst = tb.first === me.entrant;
      const opp = names.get(mineFirst ? tb.second : tb.first) || { name: '?' };
      const partner = d.settings.kind === 'pairs'
        ? (d.entrants.find((e) => e.id === me.entrant) || { players: [] }).players.filter((p) => p !== myName())[0]
        : null;
      body.push(el('p', { class: 'with' },
        partner ? el('span', {}, t('tour.partner', { name: partner }), el('br')) : null,
        t('tour.against', { name: opp.name })));
    }
    if (cur.room) {
      saveSeat(cur.room, cur.seat, P.token); // the table page opens this seat with the player's token
      go.href = `/table/${enc(cur.room)}`;
      go.dataset.room = cur.room;
      go.dataset.seat = cur.seat;
      go.hidden = false;
    } else {
      body.push(el('p', { class: 'muted', text: t('tour.physical') }));
    }
  } else if (cur && cur.result) {
    box.dataset.state = 'done';
    body.push(el('p', { class: 'big-note', text: t('tour.table_done', { n: cur.table }) }));
    body.push(boardResult(cur));
    if (cur.room) body.push(el('a', { class: 'button', href: `/replay/${enc(cur.room)}`, text: t('desk.replay') }));
    body.push(el('p', { class: 'muted', text: t(d.phase === 'closed' ? 'tour.wait_next' : 'tour.wait_others') }));
  } else if (last && last.byes.includes(me.entrant)) {
    box.dataset.state = 'bye';
    body.push(el('p', { class: 'big-note', text: t('tour.bye', { n: last.number }) }));
  } else {
    body.push(el('p', { class: 'big-note', text: t('tour.wait_next') }));
  }
  $('#my-table-body').replaceChildren(...body);
}

/** A board's result seen from the player's line: "1820 – 1350 · 14 VP". */
function boardResult(b) {
  const res = b.result;
  const me = P.me.entrant;
  const mineFirst = res.first === me;
  const mp = mineFirst ? [res.mp_first, res.mp_second] : [res.mp_second, res.mp_first];
  const vp = mineFirst ? res.vp_first : res.vp_second;
  const outcome = res.winner === null || res.winner === undefined ? 'draw' : res.winner === me ? 'won' : 'lost';
  return el('p', { class: `board-result ${outcome}` },
    el('span', { class: 'mp', text: `${mp[0]} – ${mp[1]}` }), ' ',
    el('span', { class: 'vp', text: t('desk.vp_n', { n: formatNumber(vp) }) }), ' ',
    el('span', { class: 'badge outcome', text: t('tour.' + outcome) }),
    res.abandoned_by ? el('small', { class: 'muted', text: ` ${t('desk.abandoned_by', { name: (namesOf(P.data).get(res.abandoned_by) || {}).name || res.abandoned_by })}` }) : null);
}

function renderBoards() {
  const me = P.me;
  const past = me ? me.boards.filter((b) => b.result) : [];
  $('#boards-panel').hidden = !me;
  if (!me) return;
  const names = namesOf(P.data);
  const items = past.slice().reverse().map((b) => {
    const opp = b.result.first === me.entrant ? b.result.second : b.result.first;
    return el('li', { class: 'board-item', 'data-round': b.round, 'data-table': b.table },
      el('div', { class: 'board-head' },
        el('strong', { text: `${t('desk.round_n', { n: b.round })} · ${t('desk.table_n', { n: b.table })}` }),
        el('span', { class: 'spacer' }),
        b.room ? el('a', { class: 'chip-link replay-link', href: `/replay/${enc(b.room)}`, text: t('desk.replay') }) : null),
      el('div', { class: 'muted', text: t('tour.against', { name: (names.get(opp) || {}).name || opp }) }),
      boardResult(b));
  });
  $('#boards').replaceChildren(...(items.length ? items : [el('li', { class: 'empty muted', text: t('tour.no_boards') })]));
}

function renderRounds() {
  const d = P.data;
  const sig = JSON.stringify([d.rounds, d.phase, P.me && P.me.entrant]);
  if (sig === P.sig) return;
  P.sig = sig;
  const mine = P.me ? P.me.entrant : null;
  const rounds = [...d.rounds].reverse();
  const views = rounds.map((r, i) => {
    const view = roundView(d, r, { current: i === 0, mine });
    if (i === 0) return view;
    return el('details', { class: 'past-round', 'data-round': r.number, open: P.openRounds.has(String(r.number)) || null },
      el('summary', { text: `${t('desk.round_n', { n: r.number })} · ${tn('desk.results_in', r.tables.length, { n: r.tables.filter((x) => x.result).length, of: r.tables.length })}` }), view);
  });
  $('#rounds').replaceChildren(...(views.length ? views : [el('p', { class: 'muted empty', text: t('desk.no_round_yet') })]));
}

function tickClock() {
  const box = $('#clock');
  const me = P.me;
  const clock = me && me.clock && me.current && !me.current.result ? me.clock : null;
  if (!clock || !clock.deal_deadline) { box.hidden = true; return; }
  const left = Math.max(0, Math.round((clock.deal_deadline - Date.now()) / 1000));
  box.hidden = false;
  box.classList.toggle('low', left <= 120);
  box.classList.toggle('up', left === 0);
  const mm = Math.floor(left / 60);
  const ss = String(left % 60).padStart(2, '0');
  $('#clock-time').textContent = left === 0 ? t('tour.time_up') : `${mm}:${ss}`;
  box.setAttribute('aria-label', `${t('tour.deal_time')}: ${mm}:${ss}`);
}

function goToTable(ev) {
  const go = ev.currentTarget;
  const room = go.dataset.room;
  if (!room || !P.token) return;
  ev.preventDefault();
  saveSeat(room, Number(go.dataset.seat), P.token);
  location.href = `/table/${enc(room)}`;
}

init();
