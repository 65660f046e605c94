// The replay of a finished match: /replay/{id}.
//
// GET /api/tables/{id}/replay gives {record, frames}; a frame is
// {seat, action, view} where view has the shape of state.view plus
// "hands" (every seat's hand, open). The page shows one frame at a time with
// step buttons, a slider and autoplay. ?demo=1 replays a short built-in deal.
//
// The analysis panel asks for a review of one seat's decisions in the deal shown
// (POST /api/tables/{id}/reviews), follows its progress (GET, polled while one waits or
// runs) and lists the seat's costly decisions, marked blunder, mistake or inaccuracy;
// selecting one shows the position before it, the better move's cards raised in the
// hand and the reason in words. ?analyse=SEAT opens the page with that seat chosen and
// asks for the review of the deal shown (?deal=N: deal N's first position).

import { t, getLang, initI18n, onLangChange, moveText, refusalText, formatNumber } from './i18n.js';
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
  for (let s = 0; s < n; s++) {
    const cards = hands[s];
    const box = el('section', { class: 'open-hand' + (v.turn === s && v.phase !== 'over' ? ' on-turn' : ''), 'data-seat': s },
      el('div', { class: 'seat-head' },
        el('span', { class: 'seat-name', text: seatName(info, s) }),
        v.dealer === s ? el('span', { class: 'chip-d', text: t('seat.dealer_short'), title: t('seat.dealer') }) : null,
        el('span', { class: 'chip-mini', text: lineName(info, v.line_of, v.line_of[s]) === seatName(info, s) ? `${cards ? cards.length : 0}` : `${t('table.line', { n: v.line_of[s] + 1 })} · ${cards ? cards.length : 0}` })),
      cards ? fanEl(sortBySuit(cards), { size: 'sm', lang: getLang() }) : backsEl((v.hand_sizes || [])[s] || 0));
    if (act && f.seat === s && (act.verb === 'take' || act.verb === 'draw')) box.classList.add('glow');
    boxes.push(box);
  }
  $('#hands').replaceChildren(...boxes);

  markBetter();
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

const A = { reviews: [], jobs: [], poll: null, selected: null, deal: 0 };
const TAG_MARK = { blunder: '??', mistake: '?', inaccuracy: '?!' };

function reviewsUrl() { return `/api/tables/${encodeURIComponent(R.id)}/reviews`; }
function shownDeal() { const f = R.frames[R.i]; return f ? (f.view.deal || 1) : 1; }
function chosenSeat() { return Number($('#review-seat').value || 0); }
function reviewOf(deal, seat) { return A.reviews.find((r) => r.deal === deal && r.seat === seat) || null; }
function jobOf(deal, seat) { return A.jobs.find((j) => j.deal === deal && j.seat === seat) || null; }

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

async function startReviews() {
  const panel = $('#review-panel');
  if (DEMO || !R.id) { panel.hidden = true; return; }
  const n = R.info.players || (R.info.seats || []).length || 2;
  const seats = Array.from({ length: n }, (_, s) => el('option', { value: s, text: seatName(R.info, s) }));
  $('#review-seat').replaceChildren(...seats);
  const asked = params.get('analyse');
  if (asked !== null && Number(asked) >= 0 && Number(asked) < n) $('#review-seat').value = String(Number(asked));
  $('#review-seat').addEventListener('change', () => { A.selected = null; renderReview(); markBetter(); });
  $('#analyse').addEventListener('click', () => analyse());
  await fetchReviews();
  if (asked !== null && !reviewOf(shownDeal(), chosenSeat())) await analyse();
}

async function fetchReviews() {
  clearTimeout(A.poll);
  A.poll = null;
  try {
    const data = await api('GET', reviewsUrl());
    A.reviews = data.reviews || [];
    A.jobs = data.jobs || [];
  } catch (e) {
    $('#review-status').textContent = t('review.failed', { detail: refusalText(e) });
    return;
  }
  renderReview();
  if (A.jobs.some((j) => j.status === 'queued' || j.status === 'running')) {
    A.poll = setTimeout(() => { fetchReviews(); }, 700);
  }
}

async function analyse() {
  try {
    await api('POST', reviewsUrl(), { deal: shownDeal(), seat: chosenSeat() });
  } catch (e) {
    $('#review-status').textContent = t('review.failed', { detail: refusalText(e) });
    return;
  }
  await fetchReviews();
}

function renderReview() {
  const deal = shownDeal();
  const seat = chosenSeat();
  A.deal = deal;
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
  if (!review) {
    $('#review-summary').textContent = '';
    $('#review-moves').replaceChildren();
    return;
  }
  const count = (tag) => review.decisions.filter((d) => d.tag === tag).length;
  $('#review-summary').textContent = t('review.summary', {
    name, deal, cost: Math.round(review.cost), accuracy: formatNumber(review.accuracy, { digits: 1, fixed: true }),
    blunders: count('blunder'), mistakes: count('mistake'), inaccuracies: count('inaccuracy'),
  });
  const costly = review.decisions.filter((d) => d.best !== d.played);
  $('#review-moves').setAttribute('aria-label', t('review.moves', { name, deal }));
  $('#review-moves').replaceChildren(...costly.map((d) => {
    const label = `${d.index}. ${moveText(d.played, name)}${d.tag ? ` ${TAG_MARK[d.tag]}` : ''}`;
    const pressed = A.selected && A.selected.deal === deal && A.selected.seat === seat && A.selected.index === d.index;
    const button = el('button', {
      type: 'button', class: 'link', text: label, 'data-index': d.index, 'data-tag': d.tag || '',
      'aria-pressed': pressed ? 'true' : 'false',
      title: d.tag ? t(`review.tag.${d.tag}`) : '',
    });
    button.addEventListener('click', () => {
      A.selected = { deal, seat, index: d.index };
      stop();
      go(decisionFrame(deal, d.index));
      renderReview();
    });
    return el('li', {}, button);
  }));
}

/** Under a selected decision's position: the better move in words, its cards raised. */
function markBetter() {
  const box = $('#review-better');
  if (!box) return;
  if (A.deal !== shownDeal() && R.id && !DEMO) renderReview();
  const sel = A.selected;
  const review = sel ? reviewOf(sel.deal, sel.seat) : null;
  const d = review ? review.decisions.find((x) => x.index === sel.index) : null;
  if (!d || R.i !== decisionFrame(sel.deal, sel.index)) { box.hidden = true; box.replaceChildren(); return; }
  const name = seatName(R.info, sel.seat);
  const reason = {
    close: () => t('review.reason.close'),
    pozzetto: () => t('review.reason.pozzetto'),
    pile: () => t('review.reason.pile', { after: Math.round(d.pile_taken[0] * 100), best: Math.round(d.pile_taken[1] * 100) }),
  }[d.reason] || (() => t('review.reason.points', { worlds: d.worlds }));
  box.replaceChildren(
    el('strong', { text: d.tag ? `${t(`review.tag.${d.tag}`)}: ` : '' }),
    el('span', { class: 'better-move', text: t('review.better', { best: moveText(d.best, name), played: moveText(d.played, name) }) }),
    ' ', el('span', { class: 'reason', text: reason() }),
    ' ', el('span', { class: 'cost', text: t('review.cost', { cost: Math.round(d.cost), noise: Math.round(d.margin ?? 1.96 * d.error) }) }));
  box.dataset.best = d.best;
  box.hidden = false;
  // The better move's cards, raised in the seat's hand (a draw or a take: the stock or the pile).
  const best = parseAction(d.best);
  if (best.verb === 'draw') $('#stock').classList.add('glow');
  if (best.verb === 'take') $('#pile').classList.add('glow');
  const hand = ((R.frames[R.i].view.hands || [])[sel.seat]) || [];
  const faces = [...document.querySelectorAll(`.open-hand[data-seat="${sel.seat}"] .fan > .card`)];
  const wanted = best.cards.slice();
  sortBySuit(hand).forEach((card, i) => {
    const at = wanted.indexOf(normCard(card));
    if (at >= 0 && faces[i]) { faces[i].classList.add('better'); wanted.splice(at, 1); }
  });
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
  onLangChange(() => { nameSpeeds(); if (R.frames.length) { render(); renderReview(); } });
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
