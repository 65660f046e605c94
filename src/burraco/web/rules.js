// The rules pages: /rules lists the games, /rules/{variant} says one game's rules in
// the page's language (keys rules.* of i18n.js, in each language's own game words).
// Every figure, in the words and in the tables, comes from GET /api/rules/{variant}
// (burraco.rulebook.figures, the engine's own data), so the page never disagrees with
// the engine: the texts hold {params}, never numbers of their own.

import { t, initI18n, onLangChange, refusalText } from './i18n.js';
import { el, $, api, setupLabel, variantLabel } from './common.js';

const GAMES = ['italian', 'online', 'buraco', 'canasta', 'buraco-aberto', 'buraco-fechado', 'stbl'];

const INTRO = {
  italian: 'rules.intro.italian',
  online: 'rules.intro.online',
  buraco: 'rules.intro.buraco',
  canasta: 'rules.intro.canasta',
  'buraco-aberto': 'rules.intro.buraco-aberto',
  'buraco-fechado': 'rules.intro.buraco-fechado',
  stbl: 'rules.intro.stbl',
};

// Each family's words, section by section. A paragraph is a key, or [key, shown?(figures)].
const PROSE = {
  burraco: {
    deal: ['rules.burraco.deal_1', 'rules.burraco.deal_2', 'rules.line'],
    turn: [
      'rules.burraco.turn_1', 'rules.burraco.turn_2',
      ['rules.burraco.turn_3', (f) => f.cards.discard_back_rule],
      'rules.burraco.turn_4',
    ],
    melds: ['rules.burraco.melds_1', 'rules.burraco.melds_2', 'rules.burraco.melds_3', 'rules.burraco.melds_4', 'rules.burraco.melds_5'],
    burraco: ['rules.burraco.burraco_1'],
    close: [
      'rules.burraco.close_1', 'rules.burraco.close_2',
      ['rules.burraco.close_3', (f) => f.cards.dead_stock > 0],
      ['rules.all.stall', (f) => f.cards.stall_rounds > 0],
    ],
    score: ['rules.burraco.score_1'],
  },
  buraco: {
    deal: ['rules.buraco.deal_1', 'rules.buraco.deal_2', 'rules.line'],
    turn: ['rules.buraco.turn_1', 'rules.buraco.turn_2', 'rules.buraco.turn_3', 'rules.all.no_dead_end'],
    melds: ['rules.buraco.melds_1', 'rules.buraco.melds_2', 'rules.buraco.melds_3'],
    burraco: [
      'rules.buraco.burraco_1',
      ['rules.buraco.burraco_2', (f) => f.melds.relancinho_bonus > 0],
    ],
    close: [
      'rules.buraco.close_1',
      ['rules.buraco.close_needs', (f) => f.going_out.go_out_needs_canastra],
      ['rules.buraco.vul', (f) => f.vulnerability && !f.vulnerability.refuse],
      ['rules.buraco.vul_refuse', (f) => f.vulnerability && f.vulnerability.refuse],
      ['rules.all.stall', (f) => f.cards.stall_rounds > 0],
    ],
    score: ['rules.buraco.score_1'],
  },
  // Buraco with a morto, as Brazil's online rooms play it (docs/brazil.md).
  morto: {
    deal: ['rules.morto.deal_1', 'rules.morto.deal_2', 'rules.line'],
    turn: [
      'rules.morto.turn_1',
      ['rules.morto.pile_open', (f) => f.cards.pile_open],
      ['rules.morto.pile_closed', (f) => !f.cards.pile_open],
      'rules.morto.turn_2', 'rules.all.no_dead_end',
    ],
    melds: [
      ['rules.morto.melds_sets', (f) => f.melds.sets],
      ['rules.morto.melds_no_sets', (f) => !f.melds.sets],
      'rules.morto.melds_2', 'rules.buraco.melds_3',
    ],
    burraco: ['rules.morto.burraco_1'],
    close: [
      'rules.morto.close_1',
      ['rules.morto.by_discard_partner', (f) => !f.going_out.unused_morto_untaken],
      ['rules.morto.by_discard_unused', (f) => f.going_out.unused_morto_untaken],
      ['rules.morto.close_clean', (f) => f.going_out.go_out_needs_clean],
      ['rules.buraco.close_needs', (f) => !f.going_out.go_out_needs_clean && f.going_out.go_out_needs_canastra],
      ['rules.morto.stock', (f) => f.cards.morto_as_stock],
      ['rules.all.stall', (f) => f.cards.stall_rounds > 0],
    ],
    score: ['rules.morto.score_1'],
  },
  canasta: {
    deal: [
      'rules.canasta.deal_1',
      ['rules.canasta.deal_2', (f) => f.cards.red_threes],
      'rules.canasta.deal_3', 'rules.line',
    ],
    turn: [
      'rules.canasta.turn_1', 'rules.canasta.turn_2',
      ['rules.canasta.turn_3', (f) => f.cards.opening_minimum > 0],
      'rules.all.no_dead_end',
    ],
    melds: ['rules.canasta.melds_1', 'rules.canasta.melds_2', 'rules.canasta.melds_3'],
    burraco: ['rules.canasta.burraco_1'],
    close: [
      'rules.canasta.close_1', 'rules.canasta.close_2',
      ['rules.all.stall', (f) => f.cards.stall_rounds > 0],
    ],
    score: ['rules.canasta.score_1'],
  },
};

const TITLES = {
  burraco: { burraco: 'rules.h.burraco.burraco', close: 'rules.h.close.burraco' },
  buraco: { burraco: 'rules.h.burraco.buraco', close: 'rules.h.close.buraco' },
  canasta: { burraco: 'rules.h.burraco.canasta', close: 'rules.h.close.canasta' },
};

// The rows of the bonus table: each grade's name and what it is.
const GRADE_LABEL = {
  burraco: {
    clean: 'rules.grade.burraco.clean',
    'semi-clean': 'rules.grade.burraco.semi-clean',
    dirty: 'rules.grade.burraco.dirty',
  },
  buraco: {
    clean: 'rules.grade.buraco.clean',
    dirty: 'rules.grade.buraco.dirty',
    twos: 'rules.grade.buraco.twos',
    'long-clean': 'rules.grade.buraco.long-clean',
    'real-clean': 'rules.grade.buraco.real-clean',
    'real-dirty': 'rules.grade.buraco.real-dirty',
  },
  canasta: {
    clean: 'rules.grade.canasta.clean',
    dirty: 'rules.grade.canasta.dirty',
    jokers: 'rules.grade.canasta.jokers',
    twos: 'rules.grade.canasta.twos',
    'twos-and-jokers': 'rules.grade.canasta.twos-and-jokers',
  },
};
const GRADE_NOTE = {
  burraco: {
    clean: 'rules.grade_note.clean',
    'semi-clean': 'rules.grade_note.burraco.semi-clean',
    dirty: 'rules.grade_note.burraco.dirty',
  },
  buraco: {
    clean: 'rules.grade_note.clean',
    dirty: 'rules.grade_note.buraco.dirty',
    twos: 'rules.grade_note.buraco.twos',
  },
  canasta: {
    clean: 'rules.grade_note.clean',
    dirty: 'rules.grade_note.canasta.dirty',
    jokers: 'rules.grade_note.canasta.jokers',
    'twos-and-jokers': 'rules.grade_note.canasta.twos-and-jokers',
  },
};
const CLOSING_ROW = {
  burraco: 'rules.row.closing.burraco',
  buraco: 'rules.row.closing.buraco',
  canasta: 'rules.row.closing.canasta',
};

const loaded = {}; // variant -> its figures
let failure = null; // the error of the last load, if it failed

/** The game of this address (/rules/italian), or null for the list of games. */
function currentGame() {
  const m = /^\/rules\/([a-z][a-z-]*)\/?$/.exec(location.pathname);
  return m ? m[1] : null;
}

/** The {params} of the texts, every one read from the figures. */
function params(f) {
  const { cards: c, melds: m, going_out: g, match: x } = f;
  const bonus = Object.fromEntries(f.grades.map((r) => [r.grade, r.bonus]));
  const setup = (n) => f.setups.find((s) => s.players === n);
  const three = setup(3);
  const five = setup(5);
  const six = setup(6);
  const phased = three || five;
  const p = {
    cards: c.total, decks: c.decks, jokers: c.jokers, hand: c.hand_size, draw: c.draw_count,
    dead: c.dead_stock, stall: c.stall_rounds, red_three: c.red_three_bonus, opening: c.opening_minimum,
    length: m.burraco_length, wild: m.max_wildcards, set_max: m.set_max, relancinho: m.relancinho_bonus,
    twos: bonus.twos, long: bonus['long-clean'], real: bonus['real-clean'], clean: bonus.clean, dirty: bonus.dirty,
    pozzetto: g.pozzetto_size, closing: g.closing_bonus, no_pozzetto: g.no_pozzetto_penalty,
    target: x.target, deals: x.deals, move_seconds: x.move_seconds, deal_minutes: x.deal_minutes,
    vp_total: x.vp_total, step: x.mp_step,
    penalty: x.abandon.penalty, min_vp: x.abandon.min_vp, min_mp: x.abandon.min_vp_mp,
    big: phased ? phased.pozzetti[0] : undefined,
    phase3: three && three.phase_limit, phase5: five && five.phase_limit,
    decks5: five && five.decks, decks6: six && six.decks,
  };
  if (f.vulnerability) {
    p.vul_at = f.vulnerability.at;
    p.vul_min = f.vulnerability.minimum;
    p.vul_penalty = f.vulnerability.penalty_minimum;
  }
  for (const k of Object.keys(p)) if (p[k] === undefined || p[k] === null) delete p[k];
  return p;
}

function paragraphs(list, f, P) {
  return list
    .filter((item) => !Array.isArray(item) || item[1](f))
    .map((item) => el('p', { text: t(Array.isArray(item) ? item[0] : item, P) }));
}

function table(caption, head, rows, cls = '', numeric = true) {
  return el('div', { class: 'scroll-x' },
    el('table', { class: `rules-table ${cls}`.trim() },
      el('caption', { text: caption }),
      el('thead', {}, el('tr', {}, head.map((h, i) => el('th', { scope: 'col', class: i && numeric ? 'num' : null, text: h })))),
      el('tbody', {}, rows)));
}

function row(label, value, { note = null, data = null, cls = null } = {}) {
  return el('tr', { dataset: data || undefined },
    el('th', { scope: 'row' }, label, note ? el('span', { class: 'rules-note', text: note }) : null),
    el('td', { class: cls ? `num ${cls}` : 'num', text: value }));
}

const plus = (n) => `+${n}`;
const minus = (n) => `−${n}`;

function rankLabel(ranks) {
  const name = (r) => (r === 'joker' ? t('rules.joker') : r);
  return ranks.length === 1 ? name(ranks[0]) : `${name(ranks[ranks.length - 1])}–${name(ranks[0])}`;
}

function valuesTable(f) {
  const rows = f.values.map((g) => row(rankLabel(g.ranks), String(g.points), { data: { ranks: g.ranks.join(' ') } }));
  return table(t('rules.values_caption'), [t('rules.col.card'), t('rules.col.points')], rows, 'values');
}

function bonusTable(f, P) {
  const family = f.family;
  const rows = f.grades.map((g) => {
    const note = GRADE_NOTE[family][g.grade];
    const label = GRADE_LABEL[family][g.grade];
    return row(label ? t(label) : g.grade, plus(g.bonus), {
      note: note ? t(note, P) : null, data: { grade: g.grade },
    });
  });
  if (f.melds.relancinho_bonus) {
    rows.push(row(t('rules.row.relancinho', P), plus(f.melds.relancinho_bonus), { data: { bonus: 'relancinho' } }));
  }
  if (f.cards.red_threes) {
    rows.push(row(t('rules.row.red_three'), plus(f.cards.red_three_bonus), { data: { bonus: 'red_three' } }));
  }
  rows.push(row(t(CLOSING_ROW[family]), plus(f.going_out.closing_bonus), { data: { bonus: 'closing' } }));
  if (f.going_out.pozzetti && f.going_out.no_pozzetto_penalty) {
    rows.push(row(t('rules.row.no_pozzetto'), minus(f.going_out.no_pozzetto_penalty), {
      data: { bonus: 'no_pozzetto' }, cls: 'neg',
    }));
  }
  return table(t('rules.bonus_caption'), [t('rules.col.what'), t('rules.col.points')], rows, 'bonuses');
}

function vpTable(f) {
  const bands = f.match.vp_bands;
  const rows = bands.map((b, i) => {
    const range = b.high === null ? t('rules.vp_over', { n: i ? bands[i - 1].high : 0 }) : `${b.low}–${b.high}`;
    return row(range, `${b.winner} – ${b.loser}`, { data: { low: b.low, winner: b.winner } });
  });
  return table(t('rules.vp_caption'), [t('rules.col.mp'), t('rules.col.vp')], rows, 'vp');
}

function setupsTable(f) {
  const pozzetti = f.going_out.pozzetti;
  const head = [t('rules.col.table'), t('rules.col.cards')];
  if (pozzetti) head.push(t('rules.col.pozzetti'));
  const rows = f.setups.map((s) => {
    const decks = t(s.jokers ? 'rules.setup_cards' : 'rules.setup_cards_no_jokers', s);
    const cells = [
      el('th', { scope: 'row', text: setupLabel(s.players, s.lines) }),
      el('td', {}, String(s.cards), el('span', { class: 'rules-note', text: decks })),
    ];
    if (pozzetti) {
      const first = s.pozzetti.join(' + ');
      const text = s.later_pozzetti.length ? t('rules.pozzetti_then', { first, then: s.later_pozzetti.join(' + ') }) : first;
      cells.push(el('td', { text }));
    }
    return el('tr', { dataset: { players: s.players, lines: s.lines } }, cells);
  });
  return table(t('rules.setups_caption'), head, rows, 'setups', false);
}

/** The sections of one game's page: [id, title, ...children]. */
function sections(f) {
  const family = f.family;
  const P = params(f);
  // Buraco with a morto (the Brazilian rooms' games) has words of its own.
  const prose = PROSE[family === 'buraco' && f.going_out.pozzetti ? 'morto' : family];
  const says = (list) => paragraphs(list, f, P);
  const match = [];
  match.push(...says([
    f.match.target ? 'rules.match.target' : 'rules.match.deals',
    'rules.match.either', 'rules.match.vp',
  ]));
  match.push(vpTable(f));
  match.push(...says([
    'rules.match.abandon',
    ['rules.match.timeout', () => family === 'burraco'],
  ]));
  const tables = [setupsTable(f), ...says([
    ['rules.burraco.three', () => family === 'burraco' && 'phase3' in P],
    ['rules.burraco.five', () => family === 'burraco' && 'phase5' in P],
    ['rules.burraco.six', () => family === 'burraco' && 'decks6' in P],
  ])];
  const score = [...says(prose.score), valuesTable(f)];
  if (f.cards.red_threes) score.push(el('p', { class: 'rules-note', text: t('rules.canasta.values_note') }));
  score.push(bonusTable(f, P));
  return [
    ['deal', t('rules.h.deal'), ...says(prose.deal)],
    ['turn', t('rules.h.turn'), ...says(prose.turn)],
    ['melds', t('rules.h.melds'), ...says(prose.melds)],
    ['burraco', t(TITLES[family].burraco), ...says(prose.burraco)],
    ['close', t(TITLES[family].close), ...says(prose.close)],
    ['score', t('rules.h.score'), ...score],
    ['match', t('rules.h.match'), ...match],
    ['tables', t('rules.h.tables'), ...tables],
    ['options', t('rules.h.options'), ...says([
      'rules.opt.create', 'rules.opt.takeover',
      ['rules.opt.open_hands', () => f.setups.some((s) => s.lines < s.players)],
    ])],
  ];
}

function renderGames(game) {
  const links = [[null, t('rules.games'), '/rules'], ...GAMES.map((g) => [g, variantLabel(g), `/rules/${g}`])];
  $('#games').replaceChildren(...links.map(([g, label, href]) => el('a', {
    href, class: 'chip', 'aria-current': g === game ? 'page' : null, text: label,
  })));
}

function renderGame(game) {
  const box = $('#rules');
  document.title = t('rules.page_title', { game: variantLabel(game) });
  const f = loaded[game];
  if (!f) {
    box.replaceChildren(el('p', { class: 'status', text: failure ? t('rules.error', { error: refusalText(failure) }) : t('table.loading') }));
    return;
  }
  const parts = sections(f);
  box.replaceChildren(
    el('h1', { text: variantLabel(game) }),
    el('p', { class: 'intro', text: t(INTRO[game], params(f)) }),
    el('nav', { class: 'rules-toc', 'aria-label': t('rules.contents') },
      el('ul', {}, parts.map(([id, title]) => el('li', {}, el('a', { href: `#rules-${id}`, text: title }))))),
    ...parts.map(([id, title, ...children]) => el('section', { id: `rules-${id}`, 'aria-labelledby': `h-${id}` },
      el('h2', { id: `h-${id}`, text: title }), ...children)),
  );
  box.dataset.variant = game;
}

function renderList() {
  const box = $('#rules');
  document.title = t('rules.title');
  const error = failure && !Object.keys(loaded).length;
  box.replaceChildren(
    el('h1', { text: t('rules.title') }),
    el('p', { class: 'intro', text: t('rules.list_intro') }),
    ...(error ? [el('p', { class: 'status', text: t('rules.error', { error: refusalText(failure) }) })] : []),
    el('ul', { class: 'rules-list' }, GAMES.map((g) => el('li', { dataset: { variant: g } },
      el('h2', {}, el('a', { href: `/rules/${g}`, text: variantLabel(g) })),
      loaded[g] ? el('p', { text: t(INTRO[g], params(loaded[g])) }) : null,
      el('a', { href: `/rules/${g}`, class: 'button', text: t('rules.read') })))),
  );
  box.dataset.variant = '';
}

function render() {
  const game = currentGame();
  renderGames(game);
  if (game) renderGame(game);
  else renderList();
  $('#rules').setAttribute('aria-busy', 'false');
}

async function load(game) {
  try {
    loaded[game] = await api('GET', `/api/rules/${encodeURIComponent(game)}`);
  } catch (e) {
    failure = e;
  }
}

async function init() {
  initI18n();
  onLangChange(render);
  const game = currentGame();
  render();
  await Promise.all(game ? [load(game)] : GAMES.map(load));
  render();
  // The address may name a section (/rules/italian#rules-score): go there once it exists.
  if (location.hash) {
    const target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target) target.scrollIntoView();
  }
  document.body.dataset.ready = 'true';
}

init();
