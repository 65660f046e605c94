// The replay of a finished match: /replay/{id}.
//
// GET /api/tables/{id}/replay gives {record, frames}; a frame is
// {seat, action, view} where view has the shape of state.view plus
// "hands" (every seat's hand, open). The page shows one frame at a time with
// step buttons, a slider and autoplay. ?demo=1 replays a short built-in deal.
//
// The analysis panel lists every move of the deal shown, every seat's, in order (a
// lichess move list: choosing one jumps the board to it). It asks for a review of one
// seat's decisions in that deal (POST /api/tables/{id}/reviews), follows its progress
// (GET, polled while one waits or runs), and then the seat's decisions carry their marks
// inline (?! inaccuracy, ? mistake, ?? blunder) and their cost; selecting one shows the
// position before it, the better move's cards raised in the hand and the reason in words. ?analyse=SEAT opens the page with that seat chosen and
// asks for the review of the deal shown (?deal=N: deal N's first position).
//
// Over a review: an evaluation graph (inline SVG, each point a button that jumps to its
// decision), every decision listed with its mark inline, the better move drawn on the
// board beside its reason, and "learn from your mistakes": the seat's blunders and
// mistakes as exercises, the position as the seat saw it (the other hands closed), the
// moves the review weighed to choose from, checked against its figures.

import { t, getLang, initI18n, onLangChange, moveText, adviceText, refusalText, formatNumber } from './i18n.js';
import { backEl, cardEl, fanEl, placeholderEl, sortBySuit, parseAction, normCard, cardLabel, backsEl } from './cards.js';
import { el, $, api, toast, seatName, lineName, variantLabel, setupLabel, botName } from './common.js';

const params = new URLSearchParams(location.search);
const DEMO = params.get('demo');

const R = { id: null, info: null, frames: [], i: 0, timer: null, record: '' };

function idFromUrl() {
  const m = location.pathname.match(/\/replay\/([^/?#]+)/);
  return m ? decodeURIComponent(m[1]) : params.get('table');
}

/** Table facts from the record's header when GET /api/tables/{id} is not there. */
function infoFromRecord(record, id) {
  const tag = (name) => { const m = record.match(new RegExp(`^\\[${name} "((?:[^"\\\\]|\\\\.)*)"\\]`, 'm')); return m ? m[1].replace(/\\(.)/g, '$1') : null; };
  const players = Number(tag('Players')) || 2;
  const names = Array.from({ length: players }, (_, s) => tag(`Seat${s}`) || '');
  // The record names a bot as the room did ("greedy bot 1"): a seat so named is a bot's.
  const seats = names.map((name, s) => ({ seat: s, name, kind: botName(name) !== name ? 'bot' : 'human', connected: true }));
  return { table: id, variant: tag('Variant') || 'italian', players, lines: Number(tag('Lines')) || 2, seats };
}

async function load() {
  R.id = idFromUrl();
  if (DEMO) {
    const { demoReplay } = await import('./demo.js');
    const d = demoReplay();
    R.frames = d.frames; R.info = d.info; R.record = d.record; R.id = 'demo';
    $('#demo-banner').hidden = false;
  } else {
    if (!R.id) { $('#replay-status').textContent = t('replay.error', { detail: t('table.not_found') }); return; }
    $('#replay-status').textContent = t('replay.loading');
    try {
      const data = await api('GET', `/api/tables/${encodeURIComponent(R.id)}/replay`);
      R.frames = data.frames || [];
      R.record = data.record || '';
    } catch (e) {
      $('#replay-status').textContent = t('replay.error', { detail: refusalText(e) });
      return;
    }
    try { R.info = await api('GET', `/api/tables/${encodeURIComponent(R.id)}`); } catch { R.info = infoFromRecord(R.record, R.id); }
  }
  $('#replay-status').textContent = '';
  $('#replay-status').hidden = true;
  $('#record-link').href = `/api/tables/${encodeURIComponent(R.id)}/record`;
  $('#record-link').setAttribute('download', `burraco-${R.id}.txt`);
  $('#replay-title').textContent = `· ${variantLabel(R.info.variant)} · ${setupLabel(R.info.players, R.info.lines)}`;
  const slider = $('#frame');
  slider.max = String(Math.max(0, R.frames.length - 1));
  const start = Number(params.get('frame'));
  // ?deal=N: the deal's first position (the score sheet's "analyse" of a deal).
  const dealStart = Number(params.get('deal')) > 1 ? frameAfter(Number(params.get('deal')), 1) : -1;
  go(dealStart >= 0 ? dealStart : Number.isInteger(start) && start > 0 ? start : 0);
  await startReviews();
}

function go(i) {
  if (!R.frames.length) return;
  R.i = Math.max(0, Math.min(R.frames.length - 1, i));
  render();
}

function play() {
  if (R.timer) { stop(); return; }
  if (R.i >= R.frames.length - 1) go(0);
  $('#play').innerHTML = '<svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path d="M7 5h4v14H7z M13 5h4v14h-4z"/></svg>';
  $('#play').setAttribute('aria-label', t('replay.pause'));
  $('#play').dataset.playing = 'true';
  const tick = () => {
    if (R.i >= R.frames.length - 1) { stop(); return; }
    go(R.i + 1);
    R.timer = setTimeout(tick, Number($('#speed').value));
  };
  R.timer = setTimeout(tick, Number($('#speed').value));
}

function stop() {
  clearTimeout(R.timer);
  R.timer = null;
  $('#play').innerHTML = '<svg class="icon" viewBox="0 0 24 24" aria-hidden="true"><path d="M7 5l12 7-12 7z"/></svg>';
  $('#play').setAttribute('aria-label', t('replay.play'));
  $('#play').dataset.playing = 'false';
}

function render() {
  const f = R.frames[R.i];
  if (!f) return;
  const v = f.view;
  const info = R.info;
  const n = (v.hand_sizes || v.hands || []).length;
  const slider = $('#frame');
  slider.value = String(R.i);
  const posText = t('replay.frame', { i: R.i + 1, n: R.frames.length });
  slider.setAttribute('aria-valuetext', posText);
  slider.setAttribute('aria-label', posText);
  $('#deal-info').textContent = t('table.deal', { n: v.deal || 1 });

  // Caption: who did what to reach this position.
  const cap = $('#replay-caption');
  const who = f.seat === null || f.seat === undefined ? '' : seatName(info, f.seat);
  cap.replaceChildren(
    el('span', { class: 'what', text: f.action ? moveText(f.action, who, { pozzetto: tookPozzetto(R.frames[R.i - 1], f) }) : t('replay.start', { deal: v.deal || 1 }) }),
    el('span', { class: 'frame-no', text: posText }));
  cap.dataset.action = f.action || '';
  const act = f.action ? parseAction(f.action) : null;
  const actLine = act && f.seat !== null && f.seat !== undefined ? v.line_of[f.seat] : null;

  // Lines.
  // Only lines with seats in them (the engine's melds list may be longer).
  const lineIds = [...new Set(v.line_of)].sort((a, b) => a - b);
  const lines = lineIds.map((l) => [(v.melds || [])[l] || [], l]).map(([melds, l]) => el('section', { class: 'line', 'data-line': l },
    el('div', { class: 'line-head' },
      el('span', { class: 'line-name', text: lineName(info, v.line_of, l) }),
      (v.has_pozzetto || [])[l] ? el('span', { class: 'chip-mini pz-taken', text: `✓ ${t('table.took_pozzetto')}` }) : null,
      (v.red_threes || [])[l] ? el('span', { class: 'chip-mini', text: `${t('table.red_threes')} ×${v.red_threes[l]}` }) : null),
    el('div', { class: 'melds' }, ...melds.map((cards, i) => {
      const m = el('div', { class: 'meld' + (cards.length >= 7 ? ' burraco' : ''), 'data-meld': i, 'data-line': l, 'data-cards': cards.map(normCard).join(' ') },
        el('span', { class: 'meld-no', text: i + 1 }), fanEl(cards, { size: 'sm' }));
      if (act && actLine === l && ((act.verb === 'extend' && act.meld === i) || (act.verb === 'meld' && same(act.cards, cards)))) m.classList.add('glow');
      return m;
    }))));
  $('#replay-lines').replaceChildren(...lines);

  // Center.
  $('#pozzetti').replaceChildren(...(v.pozzetti || []).map((size) => el('div', { class: 'pozzetto', role: 'img', 'aria-label': t('table.pozzetto_aria', { n: size }) },
    backEl({ size: 'sm' }), backEl({ size: 'sm' }), el('span', { class: 'count', text: size }))));
  $('#pozzetti').hidden = !(v.pozzetti && v.pozzetti.length);
  const stock = $('#stock');
  const stockN = v.stock ?? v.stock_size ?? 0;
  stock.replaceChildren(stockN > 0 ? backEl({ size: 'lg' }) : placeholderEl('', { size: 'lg', symbol: '∅' }), el('span', { class: 'count', text: stockN }));
  stock.setAttribute('aria-label', t('table.stock', { n: stockN }));
  stock.classList.toggle('glow', !!(act && act.verb === 'draw'));
  const pileCards = v.pile || [];
  const top = pileCards[pileCards.length - 1];
  const pile = $('#pile');
  pile.replaceChildren(top ? cardEl(top, { size: 'lg' }) : placeholderEl('', { size: 'lg', symbol: '' }),
    pileCards.length ? el('span', { class: 'count', text: pileCards.length }) : '',
    v.pile_hidden ? el('span', { class: 'hidden-count', text: t('table.pile_hidden', { n: v.pile_hidden }) }) : '');
  pile.dataset.top = top ? normCard(top) : '';
  pile.setAttribute('aria-label', top ? t('table.pile', { n: pileCards.length, top: cardLabel(top, getLang()) }) : t('table.pile_empty'));
  pile.classList.toggle('glow', !!(act && act.verb === 'discard'));
  $('#pile-strip').replaceChildren(pileCards.length > 1 ? fanEl(pileCards.slice(0, -1), { size: 'xs' }) : '');

  // Every hand, open.
  const hands = v.hands || [];
  const boxes = [];
  // In an exercise the seat sees only its own hand: the others are closed.
  const own = X.active && !X.done ? X.seat : null;
  for (let s = 0; s < n; s++) {
    const cards = own === null || own === s ? hands[s] : null;
    const size = hands[s] ? hands[s].length : ((v.hand_sizes || [])[s] || 0);
    const box = el('section', { class: 'open-hand' + (v.turn === s && v.phase !== 'over' ? ' on-turn' : ''), 'data-seat': s },
      el('div', { class: 'seat-head' },
        el('span', { class: 'seat-name', text: seatName(info, s) }),
        v.dealer === s ? el('span', { class: 'chip-d', text: t('seat.dealer_short'), title: t('seat.dealer') }) : null,
        el('span', { class: 'chip-mini', text: lineName(info, v.line_of, v.line_of[s]) === seatName(info, s) ? `${size}` : `${t('table.line', { n: v.line_of[s] + 1 })} · ${size}` })),
      cards ? fanEl(sortBySuit(cards), { size: 'sm', lang: getLang() }) : backsEl(size, { size: 'sm' }));
    if (act && f.seat === s && (act.verb === 'take' || act.verb === 'draw')) box.classList.add('glow');
    boxes.push(box);
  }
  $('#hands').replaceChildren(...boxes);

  markBetter();
  syncMoves();
  $('#prev').disabled = R.i === 0;
  $('#first').disabled = R.i === 0;
  $('#next').disabled = R.i >= R.frames.length - 1;
  $('#last').disabled = R.i >= R.frames.length - 1;
}

/** Did the move of frame f also take a pozzetto (its line has it now, and had not before)? */
function tookPozzetto(before, f) {
  if (!before || f.seat === null || f.seat === undefined || before.view.deal !== f.view.deal) return false;
  const line = f.view.line_of[f.seat];
  return !(before.view.has_pozzetto || [])[line] && Boolean((f.view.has_pozzetto || [])[line]);
}

// --- the analysis of a deal -----------------------------------------------------------------

const A = { reviews: [], jobs: [], poll: null, selected: null, deal: 0, seat: 0, over: true, own: null, asked: false };
const TAG_MARK = { blunder: '??', mistake: '?', inaccuracy: '?!' };
const SVG = 'http://www.w3.org/2000/svg';

function reviewsUrl() { return `/api/tables/${encodeURIComponent(R.id)}/reviews`; }
function shownDeal() { const f = R.frames[R.i]; return f ? (f.view.deal || 1) : 1; }
function chosenSeat() { return Number($('#review-seat').value || 0); }
function reviewOf(deal, seat) { return A.reviews.find((r) => r.deal === deal && r.seat === seat) || null; }
function jobOf(deal, seat) { return A.jobs.find((j) => j.deal === deal && j.seat === seat) || null; }
/** The deals of the match, from its frames. */
function dealsShown() { return [...new Set(R.frames.map((f) => f.view.deal || 1))].sort((a, b) => a - b); }
/** MP in the page's language: "-35,5" in Italian and Portuguese. */
function mp(x, digits = 1) { return formatNumber(Math.round(x * 10 ** digits) / 10 ** digits, { digits }); }

/** The frame after action ``index`` (from 1) of ``deal``; -1 when there is none. */
function frameAfter(deal, index) {
  let k = 0;
  for (let i = 0; i < R.frames.length; i++) {
    if ((R.frames[i].view.deal || 1) !== deal) continue;
    k += 1;
    if (k === index) return i;
  }
  return -1;
}

/** The position the seat decided in: after the deal's previous action (the first: after it). */
function decisionFrame(deal, index) { return frameAfter(deal, Math.max(1, index - 1)); }

/** What the seat could expect after the move it played: the played candidate's mean. */
function playedMean(d) {
  const c = (d.candidates || []).find((x) => x.action === d.played);
  return c ? c.mean : null;
}
function bestMean(d) {
  const c = (d.candidates || []).find((x) => x.action === d.best);
  return c ? c.mean : null;
}

async function startReviews() {
  const panel = $('#review-panel');
  if (DEMO || !R.id) { panel.hidden = true; return; }
  const n = R.info.players || (R.info.seats || []).length || 2;
  const seats = Array.from({ length: n }, (_, s) => el('option', { value: s, text: seatName(R.info, s) }));
  $('#review-seat').replaceChildren(...seats);
  nameDeals();
  const asked = params.get('analyse');
  if (asked !== null && Number(asked) >= 0 && Number(asked) < n) $('#review-seat').value = String(Number(asked));
  // A seat chosen is a review asked for (the server says whether this reader may).
  A.seat = chosenSeat();
  $('#review-seat').addEventListener('change', () => {
    // (a change event may come with the same seat again: that asks nothing)
    if (chosenSeat() === A.seat) return;
    A.seat = chosenSeat();
    A.selected = null; A.asked = true; stopExercise(); renderReview(); markBetter(); askIfMissing();
  });
  $('#review-deal').addEventListener('change', () => {
    A.selected = null; stopExercise(); stop();
    go(frameAfter(Number($('#review-deal').value), 1));
    askIfMissing();
  });
  $('#analyse').addEventListener('click', () => analyse());
  $('#exercise-start').addEventListener('click', () => startExercise());
  $('#exercise-next').addEventListener('click', () => { X.at += 1; showExercise(); });
  $('#exercise-close').addEventListener('click', () => stopExercise());
  await fetchReviews();
  if (asked !== null && !reviewOf(shownDeal(), chosenSeat())) await analyse();
}

function nameDeals() {
  const keep = $('#review-deal').value;
  $('#review-deal').replaceChildren(...dealsShown().map((k) => el('option', { value: k, text: t('table.deal', { n: k }) })));
  $('#review-deal').value = keep || String(shownDeal());
}

/** Once an analysis was asked on this page, choosing another seat or deal asks for its. */
async function askIfMissing() {
  const deal = shownDeal();
  const seat = chosenSeat();
  if (!A.asked || reviewOf(deal, seat) || jobOf(deal, seat)) return;
  await analyse();
}

async function fetchReviews() {
  clearTimeout(A.poll);
  A.poll = null;
  try {
    const data = await api('GET', reviewsUrl());
    A.reviews = data.reviews || [];
    A.jobs = data.jobs || [];
    A.over = data.over !== false;
    A.own = data.seat ?? null;
  } catch (e) {
    $('#review-status').textContent = t('review.failed', { detail: refusalText(e) });
    return;
  }
  // Before the match is over a player may analyse only their own seat (the server's rule).
  for (const option of $('#review-seat').options) option.disabled = !A.over && Number(option.value) !== A.own;
  renderReview();
  if (A.jobs.some((j) => j.status === 'queued' || j.status === 'running')) {
    A.poll = setTimeout(() => { fetchReviews(); }, 700);
  }
}

async function analyse() {
  A.asked = true;
  try {
    await api('POST', reviewsUrl(), { deal: shownDeal(), seat: chosenSeat() });
  } catch (e) {
    $('#review-status').textContent = t('review.failed', { detail: refusalText(e) });
    return;
  }
  await fetchReviews();
}

/** Select decision ``index`` of the review shown: its position on the board, its note. */
function selectDecision(deal, seat, index) {
  if (X.active) stopExercise();
  A.selected = { deal, seat, index };
  stop();
  go(decisionFrame(deal, index));
  showSeatHand(seat);
}

/** Jump to any move of the deal: the position right after it (its caption says it). */
function selectMove(frame) {
  if (X.active) stopExercise();
  A.selected = null;
  stop();
  go(frame);
}

/** The seat's hand in sight and the note with it: on a laptop the board's foot at the
 * controls (the note, sticky, beside it); on a phone the hand above the note, which
 * stays at the board's foot. */
function showSeatHand(seat) {
  if (matchMedia('(min-width: 900px)').matches) $('.analysis-layout').scrollIntoView({ block: 'end' });
  else document.querySelector(`.open-hand[data-seat="${seat}"]`)?.scrollIntoView({ block: 'nearest' });
}

/** The sticky notes sit above the replay's controls, whose height wraps on a phone. */
function trackControls() {
  const bar = $('.replay-controls');
  const set = () => document.body.style.setProperty('--controls-h', `${bar.offsetHeight}px`);
  new ResizeObserver(set).observe(bar);
  set();
}

function renderReview() {
  const deal = shownDeal();
  const seat = chosenSeat();
  A.deal = deal;
  if ($('#review-deal').value !== String(deal)) $('#review-deal').value = String(deal);
  const review = reviewOf(deal, seat);
  const job = jobOf(deal, seat);
  const bar = $('#review-progress');
  const status = $('#review-status');
  const name = seatName(R.info, seat);
  $('#analyse').disabled = Boolean(review) || Boolean(job && job.status !== 'failed');
  bar.hidden = !job || job.status === 'failed';
  if (job && job.total) { bar.max = job.total; bar.value = job.done; } else { bar.removeAttribute('value'); }
  if (job && job.status === 'queued') status.textContent = t('review.queued');
  else if (job && job.status === 'running') status.textContent = t('review.running', { done: job.done, total: job.total || '…' });
  else if (job && job.status === 'failed') status.textContent = t('review.failed', { detail: job.error });
  else status.textContent = review ? '' : t('review.none', { name, deal });
  const panel = $('#review-panel');
  panel.dataset.state = review ? 'done' : (job ? job.status : 'none');
  panel.dataset.seat = String(seat);
  panel.dataset.deal = String(deal);
  const exercises = review ? review.decisions.filter((d) => d.tag === 'blunder' || d.tag === 'mistake') : [];
  $('#exercise-start').hidden = !review;
  $('#exercise-start').disabled = !exercises.length;
  $('#exercise-start').title = exercises.length ? '' : t('exercise.none', { name, deal });
  renderMoves(deal, seat, review);
  if (!review) {
    $('#review-summary').textContent = '';
    $('#review-graph').hidden = true;
    $('#review-graph').replaceChildren();
    syncMoves();
    return;
  }
  const count = (tag) => review.decisions.filter((d) => d.tag === tag).length;
  // The deal's total with its interval: "nothing lost beyond noise" unless the interval
  // lies above zero (docs/review.md), never a sum of figures within noise called a loss.
  const margin = review.margin ?? 1.96 * (review.error || 0);
  $('#review-summary').textContent = t(review.cost - margin > 0 ? 'review.summary' : 'review.summary_noise', {
    name, deal, cost: formatNumber(Math.round(review.cost), { digits: 0 }), margin: formatNumber(Math.round(margin), { digits: 0 }),
    accuracy: formatNumber(review.accuracy, { digits: 1, fixed: true }),
    blunders: count('blunder'), mistakes: count('mistake'), inaccuracies: count('inaccuracy'),
  });
  renderGraph(review, name);
  syncMoves();
}

/** The deal's moves, every seat's, in order: its frames (frame k: after action k). */
function movesOf(deal) {
  const moves = [];
  for (let i = 0; i < R.frames.length; i++) {
    const f = R.frames[i];
    if ((f.view.deal || 1) === deal) moves.push({ index: moves.length + 1, frame: i, f, before: R.frames[i - 1] });
  }
  return moves;
}

/** A move in the page's words and card notation, with the pozzetto it took and the close. */
function moveLabel(m) {
  const { f } = m;
  const who = f.seat === null || f.seat === undefined ? '' : seatName(R.info, f.seat);
  const text = moveText(f.action, who, { pozzetto: tookPozzetto(m.before, f) });
  const closed = f.view.phase === 'over' && (f.view.end_reason === 'closed' || f.view.end_reason === 'went out');
  return closed ? t('move.with_close', { move: text }) : text;
}

/** Every move of the deal (lichess's move list): the reviewed seat's decisions with their
 * mark inline (?!, ?, ??) and their cost beside; choosing a decision shows the position
 * it was taken in with the better move, any other move the position after it. Only the
 * public actions of a finished match (a draw names no card): nothing a seat may not see. */
function renderMoves(deal, seat, review) {
  const list = $('#review-moves');
  const name = seatName(R.info, seat);
  const decided = new Map((review ? review.decisions : []).map((d) => [d.index, d]));
  list.dataset.deal = String(deal);
  list.dataset.seat = String(seat);
  list.setAttribute('aria-label', review ? t('review.moves', { name, deal }) : t('review.moves_plain', { deal }));
  list.replaceChildren(...movesOf(deal).map((m) => {
    const d = m.f.seat === seat ? decided.get(m.index) : undefined;
    const label = `${m.index}. ${moveLabel(m)}${d && d.tag ? ` ${TAG_MARK[d.tag]}` : ''}`;
    const attrs = {
      type: 'button', class: 'link', text: label, 'data-index': m.index, 'data-frame': m.frame,
      'data-seat': m.f.seat ?? '', 'data-tag': d ? d.tag || '' : '', 'aria-pressed': 'false',
    };
    if (d) Object.assign(attrs, { 'data-decision': 'true', 'data-costly': d.best !== d.played ? 'true' : 'false', title: d.tag ? t(`review.tag.${d.tag}`) : '' });
    const button = el('button', attrs);
    button.addEventListener('click', () => (d ? selectDecision(deal, seat, d.index) : selectMove(m.frame)));
    const cost = d && d.worlds > 0
      ? el('span', { class: 'move-cost', text: t('review.move_cost', { cost: mp(d.cost, 0), noise: mp(d.margin ?? 1.96 * d.error, 0) }) })
      : null;
    return el('li', {}, button, cost ? ' ' : null, cost);
  }));
}

/** The move list and the graph in step with the board: the move shown is the current one
 * (the decision selected when the board shows its position), the selected decision pressed
 * in both; the list scrolls itself (not the page) to the current move. */
function syncMoves() {
  const list = $('#review-moves');
  if (!list || list.dataset.deal === undefined) return;
  const deal = Number(list.dataset.deal);
  const seat = Number(list.dataset.seat);
  const sel = A.selected;
  const shown = sel && sel.deal === deal && sel.seat === seat && R.i === decisionFrame(deal, sel.index) ? sel.index : null;
  let current = null;
  for (const b of list.querySelectorAll('button')) {
    const index = Number(b.dataset.index);
    const now = shown !== null ? index === shown : Number(b.dataset.frame) === R.i;
    if (now) { b.setAttribute('aria-current', 'step'); current = b; } else b.removeAttribute('aria-current');
    b.setAttribute('aria-pressed', shown === index ? 'true' : 'false');
  }
  for (const p of document.querySelectorAll('#review-graph circle.point')) {
    p.setAttribute('aria-pressed', shown === Number(p.dataset.index) ? 'true' : 'false');
  }
  const li = current && current.parentElement;
  if (li && list.scrollHeight > list.clientHeight) {
    if (li.offsetTop < list.scrollTop) list.scrollTop = li.offsetTop;
    else if (li.offsetTop + li.offsetHeight > list.scrollTop + list.clientHeight) list.scrollTop = li.offsetTop + li.offsetHeight - list.clientHeight;
  }
}

/** The evaluation graph: the seat's expected MP after each weighed decision, one point a
 * button (a title and a description name the graph; each point's label its move). */
function renderGraph(review, name) {
  const fig = $('#review-graph');
  const points = review.decisions.map((d) => ({ d, y: playedMean(d) })).filter((p) => p.y !== null);
  if (points.length < 1) { fig.hidden = true; fig.replaceChildren(); return; }
  const W = 600; const H = 140; const PAD = 10;
  const ys = points.map((p) => p.y).concat([0]);
  const lo = Math.min(...ys); const hi = Math.max(...ys);
  const span = hi - lo || 1;
  const x = (k) => PAD + (points.length === 1 ? (W - 2 * PAD) / 2 : (k * (W - 2 * PAD)) / (points.length - 1));
  const y = (v) => PAD + ((hi - v) * (H - 2 * PAD)) / span;
  const svg = document.createElementNS(SVG, 'svg');
  const id = `graph-${review.deal}-${review.seat}`;
  svg.setAttribute('viewBox', `0 0 ${W} ${H}`);
  svg.setAttribute('class', 'eval-graph');
  svg.setAttribute('role', 'group');
  svg.setAttribute('aria-labelledby', `${id}-title`);
  svg.setAttribute('aria-describedby', `${id}-desc`);
  const node = (tag, attrs, text) => {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
    if (text !== undefined) e.textContent = text;
    return e;
  };
  svg.append(
    node('title', { id: `${id}-title` }, t('review.graph', { name, deal: review.deal })),
    node('desc', { id: `${id}-desc` }, t('review.graph_desc')),
    node('line', { class: 'zero', x1: 0, x2: W, y1: y(0), y2: y(0) }),
    node('polyline', { class: 'trend', points: points.map((p, k) => `${x(k)},${y(p.y)}`).join(' ') }));
  points.forEach((p, k) => {
    const d = p.d;
    const label = t('review.point', {
      n: d.index, move: moveText(d.played, name), mark: d.tag ? ` ${TAG_MARK[d.tag]}` : '', value: mp(p.y),
    });
    const dot = node('circle', {
      class: `point ${d.tag || ''}`, cx: x(k), cy: y(p.y), r: d.tag ? 7 : 5,
      tabindex: 0, role: 'button', 'aria-label': label, 'data-index': d.index, 'data-tag': d.tag || '',
      'aria-pressed': 'false',
    });
    dot.append(node('title', {}, label));
    const pick = () => selectDecision(review.deal, review.seat, d.index);
    dot.addEventListener('click', pick);
    dot.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(); } });
    svg.append(dot);
  });
  fig.replaceChildren(svg);
  fig.hidden = false;
}

/** Beside a selected decision's position: the better move in words and drawn on the board
 * (its cards raised in the hand, the stock, the pile or the meld outlined), and why. */
function markBetter() {
  const box = $('#review-better');
  if (!box) return;
  if (A.deal !== shownDeal() && R.id && !DEMO) renderReview();
  const side = $('#review-side');
  side.hidden = !X.active && !(A.selected && reviewOf(A.selected.deal, A.selected.seat));
  const legend = $('#review-legend');
  const sel = X.active ? (X.answered ? X.list[X.at] : null) : A.selected;
  const review = sel ? reviewOf(sel.deal, sel.seat) : null;
  const d = review ? review.decisions.find((x) => x.index === sel.index) : null;
  if (!d || R.i !== decisionFrame(sel.deal, sel.index)) {
    box.hidden = true; box.replaceChildren(); legend.hidden = true;
    if (!X.active && A.selected) side.hidden = true;
    return;
  }
  const reason = {
    close: () => t('review.reason.close'),
    pozzetto: () => t('review.reason.pozzetto'),
    pile: () => t('review.reason.pile', { after: formatNumber(Math.round(d.pile_taken[0] * 100), { digits: 0 }), best: formatNumber(Math.round(d.pile_taken[1] * 100), { digits: 0 }) }),
  }[d.reason] || (() => t('review.reason.points', { worlds: d.worlds }));
  box.replaceChildren(
    el('strong', { text: d.tag ? `${t(`review.tag.${d.tag}`)}: ` : '' }),
    el('span', { class: 'better-move', text: t('review.better', { best: adviceText(d.best), played: adviceText(d.played) }) }),
    ' ', el('span', { class: 'reason', text: reason() }),
    ' ', el('span', { class: 'cost', text: t('review.cost', { cost: mp(d.cost, 0), noise: mp(d.margin ?? 1.96 * d.error, 0) }) }));
  box.dataset.best = d.best;
  box.hidden = false;
  legend.hidden = false;
  // The better move on the board: a draw lights the stock, a take the pile, an extension
  // its meld; its cards (a lay-down's, a discard's, an extension's) raised in the hand.
  const best = parseAction(d.best);
  const line = R.frames[R.i].view.line_of[sel.seat];
  if (best.verb === 'draw') $('#stock').classList.add('glow', 'better');
  if (best.verb === 'take') $('#pile').classList.add('glow', 'better');
  if (best.verb === 'discard') $('#pile').classList.add('better');
  if (best.verb === 'extend') {
    const meld = document.querySelector(`#replay-lines .meld[data-line="${line}"][data-meld="${best.meld}"]`);
    if (meld) meld.classList.add('better');
  }
  const hand = ((R.frames[R.i].view.hands || [])[sel.seat]) || [];
  const faces = [...document.querySelectorAll(`.open-hand[data-seat="${sel.seat}"] .fan > .card`)];
  const wanted = best.cards.slice();
  sortBySuit(hand).forEach((card, i) => {
    const at = wanted.indexOf(normCard(card));
    if (at >= 0 && faces[i]) { faces[i].classList.add('better'); wanted.splice(at, 1); }
  });
}

// --- learn from your mistakes ----------------------------------------------------------------

const X = { active: false, done: false, seat: 0, list: [], at: 0, answered: false, right: 0 };

function startExercise() {
  const review = reviewOf(shownDeal(), chosenSeat());
  if (!review) return;
  X.list = review.decisions.filter((d) => d.tag === 'blunder' || d.tag === 'mistake')
    .map((d) => ({ deal: review.deal, seat: review.seat, index: d.index }));
  if (!X.list.length) return;
  Object.assign(X, { active: true, done: false, seat: review.seat, at: 0, answered: false, right: 0 });
  A.selected = null;
  stop();
  document.body.classList.add('exercising');
  showExercise();
}

function stopExercise() {
  const was = X.active;
  X.active = false;
  document.body.classList.remove('exercising');
  $('#exercise').hidden = true;
  if (was) render();
}

/** The weighed moves in a fixed order that does not give the best away. */
function choicesOf(d) {
  const moves = (d.candidates || []).map((c) => c.action);
  for (const a of [d.played, d.best]) if (!moves.includes(a)) moves.push(a);
  return [...new Set(moves)].sort();
}

function showExercise() {
  const box = $('#exercise');
  box.hidden = false;
  X.answered = false;
  const verdict = $('#exercise-verdict');
  verdict.textContent = '';
  verdict.dataset.verdict = '';
  $('#exercise-next').hidden = true;
  if (X.at >= X.list.length) {
    $('#exercise-progress').textContent = '';
    $('#exercise-ask').textContent = t('exercise.done', { n: X.list.length, right: X.right });
    $('#exercise-choices').replaceChildren();
    box.dataset.state = 'done';
    X.done = true;
    render();
    return;
  }
  const item = X.list[X.at];
  const review = reviewOf(item.deal, item.seat);
  const d = review.decisions.find((x) => x.index === item.index);
  const name = seatName(R.info, item.seat);
  box.dataset.state = 'ask';
  box.dataset.index = String(item.index);
  $('#exercise-progress').textContent = t('exercise.progress', { i: X.at + 1, n: X.list.length });
  $('#exercise-ask').textContent = t('exercise.ask', { name });
  $('#exercise-choices').setAttribute('aria-label', t('exercise.choices'));
  $('#exercise-choices').replaceChildren(...choicesOf(d).map((action) => {
    const button = el('button', { type: 'button', class: 'choice', text: adviceText(action), 'data-action': action });
    button.addEventListener('click', () => answer(d, action, name));
    return el('li', {}, button);
  }));
  go(decisionFrame(item.deal, item.index));
  showSeatHand(item.seat);
}

/** The choice against the review's figures: the best, or within the noise of the best. */
function answer(d, action, name) {
  if (X.answered) return;
  X.answered = true;
  const means = new Map((d.candidates || []).map((c) => [c.action, c.mean]));
  const best = bestMean(d);
  const mine = means.has(action) ? means.get(action) : (action === d.played && best !== null ? best - d.cost : null);
  const gap = best !== null && mine !== null ? Math.max(0, best - mine) : (action === d.best ? 0 : d.cost);
  // The noise: the half-width of the cost's 95% interval at this decision.
  const noise = d.margin ?? 1.96 * d.error;
  const right = action === d.best || gap <= noise;
  if (right) X.right += 1;
  const verdict = $('#exercise-verdict');
  verdict.dataset.verdict = right ? 'right' : 'wrong';
  const value = mp(best ?? 0);
  verdict.textContent = action === d.best ? t('exercise.best', { move: adviceText(action), value })
    : right ? t('exercise.right', { move: adviceText(action), gap: mp(gap), noise: mp(noise) })
      : t('exercise.wrong', { move: adviceText(action), gap: mp(gap), noise: mp(noise), best: adviceText(d.best), value });
  for (const b of document.querySelectorAll('#exercise-choices button')) {
    b.disabled = true;
    if (b.dataset.action === action) b.dataset.chosen = right ? 'right' : 'wrong';
    if (b.dataset.action === d.best) b.dataset.best = 'true';
  }
  $('#exercise-next').hidden = false;
  // The answer given, the better move is drawn on the board with its reason.
  render();
}

function same(a, b) {
  return a.length === b.length && [...a].map(normCard).sort().join() === [...b].map(normCard).sort().join();
}

/** The speeds in the page's language: "0,5×" in Italian and Portuguese (a step's ms is the value). */
function nameSpeeds() {
  for (const option of $('#speed').options) option.textContent = `${formatNumber(1000 / Number(option.value))}×`;
}

function init() {
  initI18n();
  nameSpeeds();
  trackControls();
  onLangChange(() => { nameSpeeds(); if (R.frames.length) { render(); nameDeals(); renderReview(); if (X.active && !X.answered) showExercise(); } });
  $('#first').addEventListener('click', () => { stop(); go(0); });
  $('#prev').addEventListener('click', () => { stop(); go(R.i - 1); });
  $('#next').addEventListener('click', () => { stop(); go(R.i + 1); });
  $('#last').addEventListener('click', () => { stop(); go(R.frames.length - 1); });
  $('#play').addEventListener('click', play);
  $('#frame').addEventListener('input', (e) => { stop(); go(Number(e.target.value)); });
  document.addEventListener('keydown', (e) => {
    if (e.target.closest && e.target.closest('input, select, textarea')) return;
    if (e.key === 'ArrowRight') { stop(); go(R.i + 1); }
    else if (e.key === 'ArrowLeft') { stop(); go(R.i - 1); }
    else if (e.key === 'Home') { stop(); go(0); }
    else if (e.key === 'End') { stop(); go(R.frames.length - 1); }
    else if (e.key === ' ' && !e.target.closest('button')) { e.preventDefault(); play(); }
    else return;
  });
  load().catch((e) => toast(refusalText(e) || String(e), 'error'));
}

init();
