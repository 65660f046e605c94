// English, Italian and Brazilian Portuguese texts.
//
// The texts are data: one catalogue per language, web/i18n/<lang>.json, a flat
// object key -> text (docs/translating.md). This module fetches English (every
// key falls back to it) and the page's language before any page script runs
// (a top-level await), so t() stays synchronous; the others are fetched when the
// #lang menu opens, or when setLang() asks for one.
//
// The language comes from the address's ?lang= if it names one (a link that
// says which; the room's 404 page is written in it), else from localStorage
// ("burraco.lang") if the player chose one in the #lang menu (a button per
// language, each named by its own name: "English", "Italiano", "Português"),
// else from the browser's languages (pt* → pt, it* → it, else en). Static texts in the
// pages carry data-i18n="key" (and data-i18n-aria, -placeholder, -title);
// code asks t("key", {param}) and re-renders on onLangChange(). Every
// language has every key (tests/test_i18n.py). A counted message has a form
// per plural category, "key.one" and "key.other" (Intl.PluralRules), and is
// asked as t("key", {n}) or tn("key", count, {param}).
// The engine's refusals (rule.<code>, burraco.refusals.TEXTS), the room's
// own (error.<code>), the tournament desk's (desk.rule.<code>,
// burraco.tournament.errors.TEXTS) and the hints' reasons (hint.why.<code>,
// burraco.bots.hints.WHY) are said from their codes and params by
// refusalText() and hintText(); the server's English text is only a fallback.

import { cardText, normCard, parseAction, prettyAction } from './cards.js';
import { seatName } from './common.js';

const KEY = 'burraco.lang';
const listeners = [];

/** The languages, in the order of the #lang menu. */
export const LANGS = ['en', 'it', 'pt'];
/** Each language's name in that language: the #lang menu names each so, whatever the page speaks. */
const NATIVE = { en: 'English', it: 'Italiano', pt: 'Português' };
/** <html lang> and the default locale of dates and times. */
const HTML_LANG = { en: 'en', it: 'it', pt: 'pt-BR' };

/** The browser's languages, most preferred first. */
function browserLangs() {
  if (typeof navigator === 'undefined') return [];
  const list = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
  return list.filter(Boolean).map(String);
}

function initialLang() {
  const asked = typeof location === 'undefined' ? null : new URLSearchParams(location.search).get('lang');
  if (LANGS.includes(asked)) return asked;
  try {
    const saved = localStorage.getItem(KEY);
    if (LANGS.includes(saved)) return saved;
  } catch { /* storage may be disabled */ }
  for (const l of browserLangs()) {
    const base = l.toLowerCase().split('-')[0];
    if (base === 'pt' || base === 'it') return base;
    if (base === 'en') return 'en';
  }
  return 'en';
}

// The catalogues that have arrived, language -> key -> text, and the fetches under way.
const TEXTS = {};
const loads = new Map();

/** Fetch the catalogue of language l once. A failed fetch leaves it out (its keys said
 * in English, or by their names if English failed too) and is tried again when asked. */
function load(l) {
  if (!loads.has(l)) {
    const url = new URL(`./i18n/${l}.json`, import.meta.url);
    const fetched = fetch(url)
      .then((r) => {
        if (!r.ok) throw new Error(`${url}: HTTP ${r.status}`);
        return r.json();
      })
      .then((texts) => { TEXTS[l] = texts; })
      .catch((err) => {
        loads.delete(l);
        console.error('the texts of', l, 'could not be loaded:', err);
      });
    loads.set(l, fetched);
  }
  return loads.get(l);
}

let lang = initialLang();
// The language last asked for: of two switches under way, the last one wins.
let wanted = lang;
await Promise.all([load('en'), load(lang)]);
if (!TEXTS.en) TEXTS.en = {};
if (!(lang in TEXTS)) lang = 'en';

export const getLang = () => lang;

/** The text for key in the current language, with {name} parameters filled in; a
 * counted message (see tn) is counted by params.n. */
export function t(key, params = {}) {
  if (!(key in TEXTS.en) && isCounted(key)) return tn(key, params.n, params);
  const s = TEXTS[lang]?.[key] ?? TEXTS.en[key] ?? key;
  return s.replace(/\{([\w ]+)\}/g, (m, p) => (p in params ? String(params[p]) : m));
}

// A counted message ("{n} cards") has a form per plural category of its language, as the
// entries key.one, key.other… (the categories of Intl.PluralRules: English, Italian and
// Portuguese need one and other; a category without its form, such as Italian's "many"
// for a million, takes other).
const PLURAL_RULES = new Map();
// Brazil's rules (CLDR's pt) put 0 with 1 ("0 carta"); a Brazilian page says "0 cartas",
// as the rooms of Brazil do: none takes the plural here.
const ZERO_TAKES_OTHER = new Set(['pt']);

/** The plural category of count in the page's language: "one", "other"… */
export function pluralCategory(count) {
  if (count === 0 && ZERO_TAKES_OTHER.has(lang)) return 'other';
  const tag = HTML_LANG[lang];
  if (!PLURAL_RULES.has(tag)) PLURAL_RULES.set(tag, new Intl.PluralRules(tag));
  return PLURAL_RULES.get(tag).select(count);
}

/** Whether key names a counted message (key.one, key.other…). */
export const isCounted = (key) => `${key}.other` in TEXTS.en;

/** Whether the catalogue says key, as a plain or a counted message. */
export const hasText = (key) => key in TEXTS.en || isCounted(key);

/**
 * A counted message in the page's language, in the form its plural rules give count
 * ("1 card", "2 cards"; "1 carta", "2 carte"), params filled in; {n} is count unless
 * params say otherwise.
 */
export function tn(key, count, params = {}) {
  const form = `${key}.${pluralCategory(Number(count))}`;
  return t(form in (TEXTS[lang] ?? {}) ? form : `${key}.other`, { n: count, ...params });
}

/** The locale of dates and times: the browser's own variant of the page's language (en-GB, pt-PT…) if it has one. */
function locale() {
  return browserLangs().find((l) => l.toLowerCase().split('-')[0] === lang) || HTML_LANG[lang];
}

/** A time of day in the page's language: "12:27:14" (it, pt), "12:27:14 PM" (en-US). */
export function formatTime(date = new Date()) {
  return new Intl.DateTimeFormat(locale(), { hour: '2-digit', minute: '2-digit', second: '2-digit' }).format(date);
}

/** A date with its time in the page's language. */
export function formatDate(date = new Date()) {
  return new Intl.DateTimeFormat(locale(), { dateStyle: 'medium', timeStyle: 'short' }).format(date);
}

/**
 * A number in the page's language, every decimal or percentage the pages show goes
 * through here: "71,3" (it, pt), "71.3" (en). At most `digits` decimals (`fixed`: always
 * that many); no thousands separator, as the scores are written everywhere else.
 */
export function formatNumber(x, { digits = 1, fixed = false } = {}) {
  if (x === null || x === undefined || x === '' || Number.isNaN(Number(x))) return String(x ?? '');
  return new Intl.NumberFormat(locale(), {
    maximumFractionDigits: digits, minimumFractionDigits: fixed ? digits : 0, useGrouping: false,
  }).format(Number(x));
}

/** Cards in the engine's notation ("5H 6H 7H", "JK") with suit symbols, the joker by its name. */
function cardsText(text) {
  return String(text).trim().split(/\s+/).filter(Boolean)
    .map((c) => (normCard(c) === 'JK' ? t('card.joker') : cardText(c))).join(' ');
}

// The params of refusals and hints that hold cards.
const CARD_PARAMS = ['cards', 'card', 'meld', 'top'];

/**
 * The engine's refusal `code` in the page's language, its params filled in
 * (cards with suit symbols, meld numbers from 1), the wrapped refusal named
 * by params.reason said in its place; null for a code this page does not know.
 */
function ruleText(code, params = {}) {
  if (!hasText(`rule.${code}`)) return null;
  const p = { ...params };
  for (const k of CARD_PARAMS) if (k in p) p[k] = cardsText(p[k]);
  // Melds are numbered from 1 on the page.
  for (const k of ['target', 'last']) if (typeof p[k] === 'number') p[k] += 1;
  if (typeof params.reason === 'string') {
    const { reason, ...inner } = params;
    p.reason = (reason !== code && ruleText(reason, inner)) || reason;
  }
  return t(`rule.${code}`, p);
}

/**
 * A tournament's refusal (burraco.tournament.errors) in the page's language, its params
 * filled in: where the tournament stands (params.phase) and a movement said in the page's
 * words; null for a rule this page does not know.
 */
// The param that counts a tournament's counted refusal ("has 1 round").
const DESK_COUNTED_BY = { knockout_rounds: 'whole', movement_rounds: 'whole' };
// The params that hold a word (burraco.tournament.errors.WORDS: a result's field, "none"), said in the page's words.
const DESK_WORDS = ['field', 'missing'];

function deskRuleText(rule, params = {}) {
  if (!hasText(`desk.rule.${rule}`)) return null;
  const p = { ...params };
  if (`desk.where.${params.phase}` in TEXTS.en) p.phase = t(`desk.where.${params.phase}`, params);
  for (const k of DESK_WORDS) if (`desk.word.${params[k]}` in TEXTS.en) p[k] = t(`desk.word.${params[k]}`);
  const movement = `format.${String(params.format ?? '').toLowerCase()}`;
  if (movement in TEXTS.en) p.format = t(movement);
  if (rule in DESK_COUNTED_BY) return tn(`desk.rule.${rule}`, params[DESK_COUNTED_BY[rule]], p);
  return t(`desk.rule.${rule}`, p);
}

// The room's refusals whose English message says more than their code, by that message.
const ROOM_MESSAGES = [
  [/^the match has started: no seat is free$/, 'error.started_no_seat'],
  [/^the table is full$/, 'error.table_full'],
  [/^seat .* is not free$/, 'error.seat_not_free'],
  [/^seat .* was just taken$/, 'error.seat_taken'],
  [/^only the table's creator starts it$/, 'error.creator_starts'],
  [/^the match has already started$/, 'error.already_started'],
  [/^the match has not started$/, 'error.not_started'],
  [/^this token holds no seat at this table$/, 'error.no_seat_here'],
  [/^there is no match in play to abandon$/, 'error.nothing_to_abandon'],
  [/^the abandonment rule is for tables of two lines$/, 'error.abandon_two_lines'],
  [/^the record is published when the match is over$/, 'error.record_after_match'],
  [/^only the tournament's director may do this$/, 'error.director_only'],
  [/^this token is no player's of this tournament$/, 'error.not_a_player'],
  [/^no table /, 'table.not_found'],
  [/^no tournament /, 'error.no_tournament'],
  [/^no record for this table$/, 'error.no_record'],
  [/^no hint now\b/, 'error.busy_hint'],
  [/^the room is checking many passwords/, 'error.busy_login'],
  [/^the room is full right now: try again in \d+ s/, 'error.busy_wait'],
  [/^a rated table is for registered players/, 'error.rated_log_in'],
  [/^this table is rated: log in/, 'error.rated_log_in'],
  [/^you already sit at this table$/, 'error.already_seated'],
  [/^your account holds no seat at this table$/, 'error.no_seat_here'],
  [/^this seat belongs to a registered player/, 'error.seat_of_account'],
];
// Codes whose message varies with the request (a tournament's rules, a form's field):
// an unknown one is said by the code's sentence with the server's words after it.
const VARIED = ['forbidden', 'bad_message'];

/** Capitalise a clause: the server's English messages start in lower case. */
const sentence = (s) => (s ? s[0].toUpperCase() + s.slice(1) : s);

/**
 * The text of a refusal or an error to show a person, in the page's
 * language: an `error` message of the room's socket ({code, message, params,
 * rule}) or an Error thrown by api() (its code, params and status). The
 * engine's refusals (code "illegal") are clauses ("the hand does not hold
 * 5♥"), the room's own are sentences; a code this page does not know is said
 * by the server's English message. ctx: {info, seat}, the table's info and
 * my seat, to name the seat in params.seat (never a seat number).
 */
export function refusalText(error, ctx = {}) {
  if (!error) return '';
  if (typeof error === 'string') return error;
  const code = error.code;
  const params = error.params || {};
  const message = String(error.message || '');
  if (code === 'illegal') {
    const text = error.rule ? ruleText(error.rule, params) : null;
    if (text !== null) return text;
    return lang === 'en' && message ? prettyAction(message) : t('error.illegal');
  }
  if (error.rule) {
    const text = deskRuleText(error.rule, params);
    if (text !== null) return text;
  }
  if (code === 'not_your_turn') {
    if (typeof params.seat !== 'number') return t('error.not_your_turn_nobody');
    return t('error.not_your_turn', { name: seatName(ctx.info, params.seat, ctx.seat ?? null) });
  }
  if (code === 'too_many') {
    const seconds = params.seconds ?? error.retryAfter;
    return seconds ? t('error.too_many', { seconds: Math.ceil(seconds) }) : t('error.too_many_soon');
  }
  if (code === 'too_many_tables' && params.guest) {
    // A guest is counted by address: the limit, why, and whether others' tables fill it.
    return t(params.others ? 'error.guest_tables_shared' : 'error.guest_tables', params);
  }
  const found = ROOM_MESSAGES.find(([re]) => re.test(message));
  if (found) {
    const seat = params.seat;
    // Seats are numbered from 1 on the page.
    if (found[1].startsWith('error.seat_')) {
      return typeof seat === 'number' ? t(found[1], { n: seat + 1 }) : t(`error.${code}`);
    }
    return t(found[1], params);
  }
  if (code && hasText(`error.${code}`)) {
    const text = t(`error.${code}`, params);
    if (!VARIED.includes(code) || !message) return text;
    return lang === 'en' ? sentence(message) : t('error.detail', { text: text.replace(/\.$/, ''), detail: message });
  }
  return message || String(code || '');
}

/** The cards of an action as text with suit symbols (the joker by its name), and the other parameters of its sentence. */
function actionParams(a, name, action) {
  const cards = a.cards.map((c) => (c === 'JK' ? t('card.joker') : cardText(c))).join(' ');
  return { name, cards, card: cards, n: (a.meld ?? 0) + 1, action: prettyAction(action) };
}

/**
 * A move as a sentence in the page's language, with the cards' suit symbols:
 * "extend 0 AD" by Anna → "Anna added A♦ to meld 1" / "Anna ha aggiunto A♦
 * alla combinazione 1" / "Anna adicionou A♦ ao jogo 1". `action` is the room's
 * text of a move (actions.py: draw, redraw, take [CARDS], meld CARDS, extend
 * N CARD, discard CARD, pass) or of an event without one (start, time-out,
 * abandon, deal-over, match-over); `name` is who moved ('' for nobody).
 * opts.pozzetto: the move also took the pozzetto.
 */
export function moveText(action, name = '', opts = {}) {
  const a = parseAction(action);
  const p = actionParams(a, name, action);
  let key;
  switch (a.verb) {
    case 'draw': case 'redraw': case 'meld': case 'extend': case 'discard': case 'pass':
    case 'abandon': case 'start':
      key = `move.${a.verb}`; break;
    case 'take': key = a.cards.length ? 'move.take_cards' : 'move.take'; break;
    case 'time-out': key = name ? 'move.time-out_seat' : 'move.time-out'; break;
    case 'deal-over': return t('table.deal_over');
    case 'match-over': return t('table.match_over');
    default: return name ? t('move.unknown', p) : p.action;
  }
  const text = t(key, p);
  return opts.pozzetto ? t('move.with_pozzetto', { move: text }) : text;
}

/** The advised move as an imperative ("discard 9♠"), in the page's language. */
export function adviceText(action) {
  const a = parseAction(action);
  const p = actionParams(a, '', action);
  const known = ['draw', 'redraw', 'meld', 'extend', 'discard', 'pass'];
  if (a.verb === 'take') return t(a.cards.length ? 'hint.take_cards' : 'hint.take', p);
  if (known.includes(a.verb)) return t(`hint.${a.verb}`, p);
  return p.action;
}

/** Why a move is advised, its counted words agreeing with their numbers. */
function hintReason(why, p) {
  // "1 of its 3 cards fits", and when every card fits, "its only card fits".
  if (why === 'take_fits' && p.fit === p.size) return tn('hint.all_fit', p.size, p);
  if (why === 'take_fits') return tn('hint.why.take_fits', p.fit, p);
  if (why === 'take_fits_none') return tn('hint.why.take_fits_none', p.size, p);
  return t(`hint.why.${why}`, p);
}

/**
 * A hint to show: the move advised and why, in the page's language, from
 * the hint's `why` (a code of burraco.bots.hints.WHY) and its params (cards
 * with suit symbols, the grade in words, the margin over the next best
 * signed). Without a known `why`, the move alone; in English the engine's
 * reason, with suit symbols, if it sent one.
 */
export function hintText(action, reason = '', why = null, params = {}) {
  if (why && hasText(`hint.why.${why}`)) {
    const p = { ...(params || {}) };
    for (const k of CARD_PARAMS) if (k in p) p[k] = cardsText(p[k]);
    if (typeof p.grade === 'string') p.grade = t(`grade.${p.grade}`);
    p.action = adviceText(action);
    let text = hintReason(why, p);
    const margin = params && params.margin;
    if (typeof margin === 'number') {
      text = tn('hint.margin', Math.abs(margin), { reason: text, margin: margin > 0 ? `+${margin}` : String(margin) });
    }
    // A hint whose time ran out before the review's interval width says so (issue 33).
    const quick = params && params.quick;
    if (typeof quick === 'number') text = tn('hint.quick', quick, { reason: text, n: quick });
    return text;
  }
  if (lang === 'en' && reason) return prettyAction(reason);
  return adviceText(action);
}

/**
 * Switch the page to language l and remember the choice: at once if its catalogue is at
 * hand, else once it has arrived. The promise settles when the page speaks l (or stays
 * as it was, if the catalogue could not be fetched).
 */
export async function setLang(l) {
  if (!LANGS.includes(l)) return;
  wanted = l;
  try { localStorage.setItem(KEY, l); } catch { /* ignore */ }
  if (!(l in TEXTS)) await load(l);
  if (wanted !== l || !(l in TEXTS)) return;
  lang = l;
  applyI18n();
  for (const cb of listeners) cb(l);
}

export function onLangChange(cb) { listeners.push(cb); }

/** Fill every [data-i18n*] element of root with its text. */
export function applyI18n(root = document) {
  document.documentElement.lang = HTML_LANG[lang];
  for (const e of root.querySelectorAll('[data-i18n]')) e.textContent = t(e.dataset.i18n);
  for (const e of root.querySelectorAll('[data-i18n-aria]')) e.setAttribute('aria-label', t(e.dataset.i18nAria));
  for (const e of root.querySelectorAll('[data-i18n-placeholder]')) e.setAttribute('placeholder', t(e.dataset.i18nPlaceholder));
  for (const e of root.querySelectorAll('[data-i18n-title]')) e.setAttribute('title', t(e.dataset.i18nTitle));
  const menu = document.getElementById('lang');
  if (menu) {
    // The menu's button shows the language in use by its own name; its accessible name
    // holds that visible word ("Lingua: Italiano"), as WCAG 2.5.3 asks. Each choice is
    // named by its own visible name alone, in its own language (lang="pt-BR").
    const summary = menu.querySelector('summary');
    summary.textContent = NATIVE[lang];
    summary.setAttribute('aria-label', t('lang.menu', { lang: NATIVE[lang] }));
    menu.querySelector('.lang-list').setAttribute('aria-label', t('lang.choose'));
    for (const b of menu.querySelectorAll('button[data-lang]')) {
      b.textContent = NATIVE[b.dataset.lang];
      if (b.dataset.lang === lang) b.setAttribute('aria-current', 'true');
      else b.removeAttribute('aria-current');
    }
  }
}

/** The list drops below its menu, its right edge under the menu's; where the bar has
 * wrapped the menu to the left of a narrow screen, its left edge instead, so that every
 * choice stays on the screen. */
function placeList(menu) {
  const list = menu.querySelector('.lang-list');
  list.style.left = '';
  list.style.right = '';
  if (list.getBoundingClientRect().left < 0) {
    list.style.left = '0';
    list.style.right = 'auto';
  }
}

/** Wire the #lang menu (a <details>: its summary opens it; Escape or a click elsewhere
 * closes it) and translate the page once. The other languages are fetched as the menu
 * opens, so that a choice switches at once. */
export function initI18n() {
  const menu = document.getElementById('lang');
  if (menu) {
    const summary = menu.querySelector('summary');
    menu.addEventListener('toggle', () => {
      if (!menu.open) return;
      for (const l of LANGS) load(l);
      placeList(menu);
    });
    for (const b of menu.querySelectorAll('button[data-lang]')) {
      b.addEventListener('click', () => {
        menu.open = false;
        summary.focus();
        setLang(b.dataset.lang);
      });
    }
    menu.addEventListener('keydown', (e) => {
      if (e.key !== 'Escape' || !menu.open) return;
      // The table's own Escape (lower the raised cards) is not this one's.
      e.stopPropagation();
      menu.open = false;
      summary.focus();
    });
    document.addEventListener('click', (e) => { if (menu.open && !menu.contains(e.target)) menu.open = false; });
  }
  applyI18n();
}
