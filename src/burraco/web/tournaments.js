// /tournaments: the room's tournaments (GET /api/tournaments), those in play, those
// taking entries and those finished, each a link to its public page (/tournament/{id}),
// read again every few seconds while the page shows.

import { t, tn, initI18n, onLangChange, formatTime, refusalText } from './i18n.js';
import { el, $, api } from './common.js';
import { settingsText } from './desk.js';

const POLL_MS = 10000;
/** Where each phase is listed: a round being seated or played, or between two, is in play. */
const LIST_OF = {
  registration: 'upcoming', seating: 'running', playing: 'running', closed: 'running', finished: 'finished',
};

let found = null;

function item(tour) {
  const s = tour.settings || {};
  const played = tour.rounds || 0;
  const progress = played
    ? (s.rounds ? t('desk.round_of', { n: played, of: s.rounds }) : t('desk.round_n', { n: played }))
    : t('desk.no_round_yet');
  return el('li', { 'data-tournament': tour.tournament, 'data-phase': tour.phase },
    el('h3', {}, el('a', { class: 'tour-link', href: `/tournament/${encodeURIComponent(tour.tournament)}`, text: tour.name })),
    el('p', { class: 'muted', text: `${settingsText(s)}` }),
    el('p', { class: 'tour-progress', text: `${tn('tours.entrants', tour.entrants)} · ${progress}` }));
}

function render() {
  if (!found) return;
  const lists = { running: [], upcoming: [], finished: [] };
  // The latest first: a room keeps its finished tournaments.
  const ordered = [...found].sort((a, b) => (b.created || 0) - (a.created || 0));
  for (const tour of ordered) lists[LIST_OF[tour.phase] || 'running'].push(item(tour));
  for (const [name, items] of Object.entries(lists)) {
    $(`#tours-${name}`).replaceChildren(...(items.length ? items : [el('li', { class: 'empty muted', text: t('tours.none') })]));
  }
}

async function refresh() {
  try {
    found = (await api('GET', '/api/tournaments')).tournaments;
    render();
    $('#tours-status').textContent = t('lobby.refreshed', { time: formatTime() });
    document.body.dataset.ready = 'true';
  } catch (e) {
    $('#tours-status').textContent = t('lobby.offline', { detail: refusalText(e) });
  }
}

initI18n();
onLangChange(render);
refresh();
setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
