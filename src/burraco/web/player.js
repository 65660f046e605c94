// A player's page, /player/{name}: name, language, ratings per game, statistics per game
// and overall, and the last matches with their replays (GET /api/players/{name}).
// A bot level's page is the same, its name said as the lobby says it.

import { t, initI18n, onLangChange, refusalText, formatDate, formatNumber } from './i18n.js';
import { el, $, api, botName, me, programName, saveSeat, variantLabel, FALLBACK_VARIANTS } from './common.js';
import { gameLabel, ratedName } from './rated.js';

let player = null;
let failure = null;

const LANGUAGE_NAMES = { en: 'English', it: 'Italiano', pt: 'Português' };

// The statistics' rows, in order: [key of the figure, key of its label].
const FIGURES = [
  ['matches', 'stat.matches'], ['wins', 'stat.wins'], ['draws', 'stat.draws'], ['losses', 'stat.losses'],
  ['points_per_deal', 'stat.points_per_deal'], ['deals', 'stat.deals'],
  ['burracos_clean', 'stat.burracos_clean'], ['burracos_semi', 'stat.burracos_semi'],
  ['burracos_dirty', 'stat.burracos_dirty'], ['closes', 'stat.closes'], ['pozzetti', 'stat.pozzetti'],
  ['abandoned', 'stat.abandoned'],
];

function currentName() {
  const m = /^\/player\/([^/]+)\/?$/.exec(location.pathname);
  return m ? decodeURIComponent(m[1]) : '';
}

/** A table that scrolls sideways on a narrow screen: a region the keyboard can reach. */
const scrolling = (label, table) => el('div', { class: 'scroll-x', tabindex: '0', role: 'region', 'aria-label': label }, table);

const num = (v) => (v === null || v === undefined ? '–' : formatNumber(v));

function ratings() {
  if (!player.ratings.length) return el('p', { class: 'status', text: t('player.no_ratings') });
  const caption = t('player.ratings_caption', { name: ratedName(player) });
  return scrolling(caption, el('table', { class: 'rules-table board-table' },
    el('caption', { text: caption }),
    el('thead', {}, el('tr', {},
      el('th', { scope: 'col', text: t('player.game') }),
      el('th', { scope: 'col', class: 'num', text: t('board.rating') }),
      el('th', { scope: 'col', class: 'num', text: t('board.matches') }))),
    el('tbody', {}, player.ratings.map((r) => el('tr', { dataset: { game: r.game } },
      el('th', { scope: 'row' }, el('a', { href: `/leaderboard/${r.game}`, text: gameLabel(r.game) })),
      el('td', { class: 'num rating', text: formatNumber(r.rating) }),
      el('td', { class: 'num', text: String(r.matches) })))),
  ));
}

function statistics() {
  const stats = player.statistics;
  if (!stats.overall.matches) return el('p', { class: 'status', text: t('player.no_matches') });
  const columns = [[t('player.all_games'), stats.overall],
    ...Object.entries(stats.games).map(([g, s]) => [gameLabel(g), s])];
  const caption = t('player.stats_caption', { name: ratedName(player) });
  return scrolling(caption, el('table', { class: 'rules-table stats-table' },
    el('caption', { text: caption }),
    el('thead', {}, el('tr', {}, el('td', {}), columns.map(([label]) => el('th', { scope: 'col', class: 'num', text: label })))),
    el('tbody', {}, FIGURES.map(([key, label]) => el('tr', { dataset: { figure: key } },
      el('th', { scope: 'row', text: t(label) }),
      columns.map(([, s]) => el('td', { class: 'num', text: num(s[key]) }))))),
  ));
}

function opponents(match) {
  return match.players.filter((p) => p.seat !== match.seat).map((p) => {
    // A bot's seat is its level's account: its name is said in the page's language.
    const who = p.account ? el('a', { href: `/player/${encodeURIComponent(p.account)}`, text: p.program ? programName(p.name) : botName(p.name, p.account) }) : p.name;
    return el('span', { class: p.line === match.line ? 'partner' : 'opponent' }, who);
  }).flatMap((e, i) => (i ? [', ', e] : [e]));
}

function change(match) {
  if (!match.rated || match.change === null) return t('player.unrated');
  return match.change > 0 ? `+${match.change}` : String(match.change);
}

function lastMatches() {
  if (!player.matches.length) return el('p', { class: 'status', text: t('player.no_matches') });
  const caption = t('player.last_caption', { name: ratedName(player), n: player.matches.length });
  return scrolling(caption, el('table', { class: 'rules-table matches-table' },
    el('caption', { text: caption }),
    el('thead', {}, el('tr', {}, [
      ['player.date', null], ['player.game', null], ['player.with', null], ['player.result', null],
      ['player.points', 'num'], ['player.change', 'num'], ['player.links', null],
    ].map(([k, c]) => el('th', { scope: 'col', class: c, text: t(k) })))),
    el('tbody', {}, player.matches.map((m) => el('tr', { dataset: { table: m.table, outcome: m.outcome } },
      el('td', { text: formatDate(new Date(m.date * 1000)) }),
      el('td', { text: gameLabel(m.game) }),
      el('td', {}, opponents(m)),
      el('th', { scope: 'row', class: `outcome-${m.outcome}` }, t(m.abandoned ? 'outcome.abandoned' : `outcome.${m.outcome}`),
        // Counted as abandoned because a bot played most of the seat's turns.
        m.absent ? el('span', { class: 'absent-note', text: t('player.absent', { bot: m.bot_turns, turns: m.turns }) }) : null),
      el('td', { class: 'num', text: String(m.points) }),
      el('td', { class: 'num', text: change(m) }),
      el('td', { class: 'links' },
        el('a', { href: m.replay, text: t('player.replay'), 'aria-label': t('player.replay_of', { table: m.table }) }), ' · ',
        el('a', { href: `${m.replay}?analyse=${m.seat}`, class: 'analyse-link', text: t('player.analyse'), 'aria-label': t('player.analyse_of', { table: m.table }) }), ' · ',
        el('a', { href: m.record, download: true, text: t('player.record'), 'aria-label': t('player.record_of', { table: m.table }) })),
    ))),
  ));
}

/** A person challenges a bot account (docs/bots.md): a table of theirs that keeps a seat
 * for the bot; the page goes to it, and the bot joins when its program accepts. */
function challengeForm() {
  const field = (id, label, input) => el('div', { class: 'field' }, el('label', { for: id, text: t(label) }), input);
  const variant = el('select', { id: 'challenge-variant' },
    // Every preset of the room, Brazil's too (the server takes each: bot_api.py).
    FALLBACK_VARIANTS.map(({ name }) => el('option', { value: name, text: variantLabel(name) })));
  const players = el('select', { id: 'challenge-players' },
    [2, 4].map((n) => el('option', { value: String(n), text: String(n) })));
  const deals = el('input', { id: 'challenge-deals', type: 'number', min: '1', max: '50', value: '3' });
  const rated = el('input', { id: 'challenge-rated', type: 'checkbox' });
  const status = el('p', { role: 'alert', id: 'challenge-error', class: 'form-error' });
  const form = el('form', { id: 'challenge-form' },
    field('challenge-variant', 'challenge.game', variant),
    field('challenge-players', 'challenge.players', players),
    field('challenge-deals', 'challenge.deals', deals),
    el('div', { class: 'field' }, el('label', {}, rated, ' ', t('challenge.rated'))),
    el('button', { type: 'submit', class: 'primary', text: t('challenge.send') }),
    status);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const { user } = await me();
    if (!user) { location.href = `/account?next=${encodeURIComponent(location.pathname)}`; return; }
    try {
      const res = await api('POST', `/api/players/${encodeURIComponent(player.name)}/challenge`, {
        variant: variant.value, players: Number(players.value), deals: Number(deals.value) || null, rated: rated.checked,
      });
      saveSeat(res.table, res.seat, res.token);
      location.href = res.url;
    } catch (err) { status.textContent = refusalText(err); }
  });
  return el('section', { 'aria-labelledby': 'challenge-title' },
    el('h2', { id: 'challenge-title', text: t('challenge.title', { name: player.name }) }),
    el('p', { class: 'muted', text: t('challenge.intro') }), form);
}

function render() {
  const box = $('#player');
  box.setAttribute('aria-busy', 'false');
  if (!player) {
    document.title = t('player.title_plain');
    const text = failure ? t('player.error', { error: refusalText(failure) }) : t('table.loading');
    box.replaceChildren(el('p', { class: 'status', text }));
    return;
  }
  const name = ratedName(player);
  document.title = t('player.title', { name });
  // replaceChildren writes a null as the text "null": the parts a page lacks are left out.
  box.replaceChildren(...[
    el('h1', { text: name }),
    el('p', { class: 'player-meta muted' },
      player.program
        ? t('player.program_intro', { owner: player.owner || '' })
        : player.kind === 'bot'
        ? t('player.bot_intro')
        : t('player.meta', { language: LANGUAGE_NAMES[player.language] || player.language, date: formatDate(new Date(player.created * 1000)) })),
    player.program ? challengeForm() : null,
    el('section', { 'aria-labelledby': 'ratings-title' }, el('h2', { id: 'ratings-title', text: t('player.ratings') }), ratings()),
    el('section', { 'aria-labelledby': 'stats-title' }, el('h2', { id: 'stats-title', text: t('player.stats') }), statistics()),
    el('section', { 'aria-labelledby': 'last-title' }, el('h2', { id: 'last-title', text: t('player.last') }), lastMatches()),
  ].filter(Boolean));
}

async function init() {
  initI18n();
  onLangChange(render);
  render();
  try {
    player = await api('GET', `/api/players/${encodeURIComponent(currentName())}`);
  } catch (e) {
    failure = e;
  }
  render();
  document.body.dataset.ready = 'true';
}

init();
