// /history: finished matches, the latest first: every table's, or "my matches" for a
// logged-in player; each with its players, result, score sheet (replay) and record.

import { t, initI18n, onLangChange, refusalText, formatDate } from './i18n.js';
import { el, $, api, me, variantLabel, seatLabel } from './common.js';

let mine = new URLSearchParams(location.search).get('mine') === '1';
let page = 1;
let shown = [];

function seatText(s) {
  const name = seatLabel(s);
  return s.points === null ? name : `${name} ${s.points}`;
}

function row(m) {
  const when = new Date(m.finished_at);
  const lines = new Map();
  for (const s of m.seats) {
    const key = s.line === null ? s.seat : s.line;
    if (!lines.has(key)) lines.set(key, []);
    lines.get(key).push(s);
  }
  const sides = [...lines.values()].map((seats) => {
    const names = seats.map((s) => (s.registered
      ? el('a', { href: `/player/${encodeURIComponent(s.name)}`, text: seatLabel(s) })
      : el('span', { text: seatLabel(s) })));
    const joined = [];
    names.forEach((n, i) => { if (i) joined.push(' & '); joined.push(n); });
    const first = seats[0];
    const won = first.outcome === 'win';
    return el('li', { class: won ? 'won' : '' }, ...joined,
      first.points === null ? '' : el('span', { class: 'points', text: ` ${first.points}` }),
      won ? el('span', { class: 'badge', text: t('history.won') }) : '');
  });
  return el('article', { class: 'match-row', 'data-table': m.table },
    el('h2', {}, `${variantLabel(m.variant)} · ${t('history.players', { n: m.players })}`,
      m.rated ? el('span', { class: 'badge', text: t('history.rated') }) : '',
      m.tournament ? el('span', { class: 'badge', text: t('history.tournament') }) : ''),
    el('p', { class: 'muted', text: formatDate(when) }),
    el('ul', { class: 'sides' }, ...sides),
    el('p', { class: 'links' },
      el('a', { href: m.replay, text: t('history.replay') }), ' · ',
      el('a', { href: m.record, text: t('history.record'), download: '' })));
}

function render() {
  const box = $('#matches');
  box.replaceChildren(...(shown.length ? shown.map(row) : [el('p', { class: 'muted', text: t(mine ? 'history.none_mine' : 'history.none') })]));
  $('#tab-all').setAttribute('aria-selected', String(!mine));
  $('#tab-mine').setAttribute('aria-selected', String(mine));
}

async function load(reset = true) {
  if (reset) { page = 1; shown = []; }
  try {
    const answer = await api('GET', `/api/history?page=${page}${mine ? '&mine=true' : ''}`);
    shown = shown.concat(answer.matches);
    $('#more').hidden = !answer.more;
  } catch (err) {
    $('#matches').replaceChildren(el('p', { role: 'alert', text: refusalText(err) }));
    return;
  }
  render();
}

async function start() {
  initI18n();
  const { user } = await me();
  $('#tab-mine').hidden = !user;
  if (!user) mine = false;
  $('#tab-all').addEventListener('click', () => { mine = false; load(); });
  $('#tab-mine').addEventListener('click', () => { mine = true; load(); });
  $('#more').addEventListener('click', () => { page += 1; load(false); });
  onLangChange(render);
  await load();
}

start();
