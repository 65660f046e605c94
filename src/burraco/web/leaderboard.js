// The leaderboards: /leaderboard lists the rated games, /leaderboard/{game} ranks one
// game's players and bots by their rating (GET /api/leaderboard/{game}?page=), the bots'
// ratings above it so that a player can choose an opponent of their level.

import { t, initI18n, onLangChange, refusalText, formatNumber } from './i18n.js';
import { el, $, api, setupLabel, variantLabel } from './common.js';
import { gameLabel, ratedName } from './rated.js';

let games = null;
let board = null;
let failure = null;

/** The game named by the address (/leaderboard/italian-2), or null for the list. */
function currentGame() {
  const m = /^\/leaderboard\/([^/]+)\/?$/.exec(location.pathname);
  return m ? decodeURIComponent(m[1]) : null;
}

function currentPage() {
  const n = Number(new URLSearchParams(location.search).get('page'));
  return Number.isInteger(n) && n > 0 ? n : 1;
}

function playerLink(row) {
  return el('a', { href: `/player/${encodeURIComponent(row.name)}`, text: ratedName(row) });
}

function chip(href, label, current, game = '') {
  return el('a', { href, class: 'chip', 'aria-current': current ? 'page' : null, text: label, dataset: { game } });
}

/** The games by family: "Italian Burraco: 2 players · 3 players · 4 in pairs…". */
function renderGames(game) {
  const families = [];
  for (const g of games || []) {
    const last = families[families.length - 1];
    if (last && last.variant === g.variant) last.games.push(g);
    else families.push({ variant: g.variant, games: [g] });
  }
  if (game) {
    // A game's page: its ranking first, so the twenty-odd games fold into one choice.
    const pick = el('select', {
      id: 'game-select', onchange: (e) => { location.href = `/leaderboard/${encodeURIComponent(e.target.value)}`; },
    }, ...families.map((f) => el('optgroup', { label: variantLabel(f.variant) },
      f.games.map((g) => el('option', { value: g.game, selected: g.game === game, text: gameLabel(g) })))));
    $('#games').replaceChildren(el('div', { class: 'board-pick' },
      chip('/leaderboard', t('board.all_games'), false),
      el('label', { for: 'game-select', text: t('board.game_select') }), pick));
    return;
  }
  $('#games').replaceChildren(
    el('div', { class: 'board-family' }, chip('/leaderboard', t('board.all_games'), !game)),
    ...families.map((f) => el('div', { class: 'board-family' },
      el('span', { class: 'board-family-name', text: variantLabel(f.variant) }),
      f.games.map((g) => chip(`/leaderboard/${g.game}`, setupLabel(g.players, g.lines), g.game === game, g.game)))),
  );
}

/** The parts of a page that are there (a part may be null: no bots, one page only…). */
const present = (...parts) => parts.filter(Boolean);

function status(text) {
  return el('p', { class: 'status', text });
}

function renderList() {
  document.title = t('board.title');
  $('#board').replaceChildren(...present(
    el('h1', { text: t('board.title') }),
    el('p', { class: 'intro', text: t('board.intro') }),
    failure ? status(t('board.error', { error: refusalText(failure) })) : null,
    el('p', { text: t('board.choose') }),
    el('ul', { class: 'board-games' }, (games || []).map((g) => el('li', {},
      el('a', { href: `/leaderboard/${g.game}`, text: gameLabel(g) })))),
  ));
}

function ratingTable(rows, caption, withRank) {
  const head = [withRank ? t('board.rank') : null, t('board.player'), t('board.rating'), t('board.matches')].filter(Boolean);
  return el('table', { class: 'rules-table board-table' },
    el('caption', { text: caption }),
    el('thead', {}, el('tr', {}, head.map((h, i) => el('th', { scope: 'col', class: i === (withRank ? 1 : 0) ? null : 'num', text: h })))),
    el('tbody', {}, rows.map((row) => el('tr', { class: row.bot ? 'is-bot' : null, dataset: { name: row.name } },
      withRank ? el('td', { class: 'num', text: String(row.rank) }) : null,
      el('th', { scope: 'row' }, playerLink(row),
        // A flagged account's rating is frozen while moderators review it.
        row.review ? el('span', { class: 'badge muted', text: t('board.review'), title: t('board.review_title') }) : null),
      el('td', { class: 'num rating', text: formatNumber(row.rating) }),
      el('td', { class: 'num', text: String(row.matches) }),
    ))),
  );
}

function pager(game) {
  const page = board.page;
  const links = [];
  if (page > 1) links.push(el('a', { class: 'button', href: `/leaderboard/${game}?page=${page - 1}`, text: t('board.prev') }));
  if (board.more) links.push(el('a', { class: 'button', href: `/leaderboard/${game}?page=${page + 1}`, text: t('board.next') }));
  if (!links.length) return null;
  return el('nav', { class: 'board-pager', 'aria-label': t('board.pages') },
    el('span', { class: 'muted', text: t('board.page', { n: page }) }), ...links);
}

function renderGame(game) {
  const box = $('#board');
  if (!board) {
    document.title = t('board.title');
    box.replaceChildren(status(failure ? t('board.error', { error: refusalText(failure) }) : t('table.loading')));
    return;
  }
  const label = gameLabel(board);
  document.title = t('board.page_title', { game: label });
  // The ranking comes first, in sight as the page opens; the bots and what a rating is follow.
  box.replaceChildren(...present(
    el('h1', { text: label }),
    el('section', { 'aria-labelledby': 'ranking-title' },
      el('h2', { id: 'ranking-title', text: t('board.ranking') }),
      board.rows.length
        ? ratingTable(board.rows, t('board.ranking_caption', { game: label, n: board.page }), true)
        : status(t('board.empty'))),
    pager(game),
    board.bots.length ? el('section', { class: 'board-bots', 'aria-labelledby': 'bots-title' },
      el('h2', { id: 'bots-title', text: t('board.bots') }),
      el('p', { text: t('board.bots_intro') }),
      ratingTable(board.bots, t('board.bots_caption', { game: label }), false)) : null,
    el('p', { class: 'intro', text: t('board.intro') }),
  ));
}

function render() {
  const game = currentGame();
  renderGames(game);
  if (game) renderGame(game);
  else renderList();
  $('#board').setAttribute('aria-busy', 'false');
}

async function init() {
  initI18n();
  onLangChange(render);
  render();
  const game = currentGame();
  try {
    const [list, ranked] = await Promise.all([
      api('GET', '/api/leaderboard'),
      game ? api('GET', `/api/leaderboard/${encodeURIComponent(game)}?page=${currentPage()}`) : null,
    ]);
    games = list.games;
    board = ranked;
  } catch (e) {
    failure = e;
  }
  render();
  document.body.dataset.ready = 'true';
}

init();
