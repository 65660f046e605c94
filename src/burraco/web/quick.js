// Quick play on the lobby: choose a game and a table, press Play, wait for players of your
// level (bots fill the empty seats after the room's wait, if allowed), then go to the table.
// Alone in the game's queue, "Play bots now" seats the player at once with bots.

import { t, onLangChange, refusalText } from './i18n.js';
import { $, el, api, me, saveSeat, savedName, saveName, toast, setupLabel, variantLabel } from './common.js';

const POLL_MS = 1000;
// The sizes of each game when the room does not say (GET /api/quick does).
let games = {
  italian: [2, 3, 4, 5, 6], online: [2, 4], buraco: [2, 3, 4, 6], canasta: [2, 4],
  'buraco-aberto': [2, 4], 'buraco-fechado': [2, 4], stbl: [2, 4],
};
let waitSeconds = 20;
let user = null;
let csrf = null;
// While waiting: {ticket, bots, deadline (performance.now() of the bots), since, queue}.
let waiting = null;
let pollTimer = null;
let secondTimer = null;

/** The lines quick play seats for a table size (the preset's usual ones, variants.py). */
function usualLines(name, players) {
  if (players === 3 || players === 5) return players;
  if (players === 6) return name === 'italian' ? 3 : 2;
  return 2;
}

function fillGames() {
  const sel = $('#quick-variant');
  const current = sel.value || 'italian';
  const names = Object.keys(games);
  sel.replaceChildren(...names.map((n) => el('option', { value: n, text: variantLabel(n) })));
  sel.value = names.includes(current) ? current : names[0];
  fillSizes();
}

function fillSizes() {
  const name = $('#quick-variant').value;
  const sizes = games[name] || [2];
  const sel = $('#quick-players');
  const current = Number(sel.value);
  sel.replaceChildren(...sizes.map((p) => el('option', { value: String(p), text: setupLabel(p, usualLines(name, p)) })));
  sel.value = String(sizes.includes(current) ? current : sizes.includes(2) ? 2 : sizes[0]);
}

function showText() {
  $('#quick-text').textContent = t('quick.text', { s: Math.round(waitSeconds) });
}

function setWaiting(on) {
  $('#quick-play').hidden = on;
  $('#quick-cancel').hidden = !on;
  $('#quick-bots-now').hidden = true;
  $('#quick-play').disabled = false;
  for (const id of ['#quick-variant', '#quick-players', '#quick-bots', '#quick-name']) $(id).disabled = on;
  $('#quick-form').closest('.quick').classList.toggle('waiting', on);
}

/** The status line: the countdown to the bots, or how long the wait has lasted. */
function showStatus() {
  if (!waiting) return;
  const now = performance.now();
  const others = waiting.queue > 1 ? ` ${t('quick.others', { n: waiting.queue - 1 })}` : '';
  let text;
  if (waiting.bots) {
    const left = Math.ceil((waiting.deadline - now) / 1000);
    text = left > 0 ? t('quick.bots_in', { s: left }) : t('quick.seating');
  } else {
    text = t('quick.waiting', { s: Math.floor((now - waiting.since) / 1000) });
  }
  $('#quick-status').textContent = text + others;
}

function stopWaiting(message = '') {
  waiting = null;
  clearTimeout(pollTimer);
  clearInterval(secondTimer);
  setWaiting(false);
  $('#quick-status').textContent = message;
}

/** Take the room's news of the ticket: the wait goes on, or the seat is ready. */
function take(answer) {
  if (!waiting) return;
  if (answer.status === 'seated') {
    waiting = null;
    clearInterval(secondTimer);
    $('#quick-status').textContent = t('quick.found');
    saveSeat(answer.table, answer.seat, answer.token);
    location.href = answer.url || `/table/${encodeURIComponent(answer.table)}`;
    return;
  }
  // Times from "waited", not from the server's clock: the two clocks may differ.
  const now = performance.now();
  waiting.since = now - answer.waited * 1000;
  waiting.deadline = now + (answer.wait_seconds - answer.waited) * 1000;
  waiting.queue = answer.queue || 1;
  // Nobody else waits for this game: the player need not wait out the bots' delay.
  $('#quick-bots-now').hidden = waiting.queue > 1;
  showStatus();
}

/** "Play bots now": the room seats the player at once, bots on the other seats. */
async function botsNow() {
  if (!waiting) return;
  const button = $('#quick-bots-now');
  button.disabled = true;
  $('#quick-status').textContent = t('quick.seating');
  try {
    take(await api('POST', `/api/quick/${encodeURIComponent(waiting.ticket)}/bots`));
  } catch (e) {
    if (e.status === 404) stopWaiting(t('quick.gone'));
    else toast(refusalText(e), 'error');
  } finally {
    button.disabled = false;
  }
}

async function poll() {
  if (!waiting) return;
  const ticket = waiting.ticket;
  try {
    take(await api('GET', `/api/quick/${encodeURIComponent(ticket)}`));
  } catch (e) {
    if (e.status === 404) { stopWaiting(t('quick.gone')); return; }
    $('#quick-status').textContent = refusalText(e);
  }
  if (waiting && waiting.ticket === ticket) pollTimer = setTimeout(poll, POLL_MS);
}

async function play(ev) {
  ev.preventDefault();
  const nameInput = $('#quick-name');
  const name = user ? user.name : nameInput.value.trim();
  if (!name) {
    nameInput.required = true;
    nameInput.reportValidity();
    return;
  }
  if (!user) saveName(name);
  $('#quick-play').disabled = true;
  const bots = $('#quick-bots').checked;
  try {
    const answer = await api('POST', '/api/quick', {
      variant: $('#quick-variant').value,
      players: Number($('#quick-players').value),
      bots,
      name: user ? null : name,
    });
    waiting = { ticket: answer.ticket, bots, deadline: 0, since: 0, queue: 1 };
    setWaiting(true);
    take(answer);
    secondTimer = setInterval(showStatus, 250);
    pollTimer = setTimeout(poll, POLL_MS);
  } catch (e) {
    $('#quick-play').disabled = false;
    toast(refusalText(e), 'error');
  }
}

async function cancel() {
  const ticket = waiting && waiting.ticket;
  stopWaiting(t('quick.cancelled'));
  $('#quick-play').focus();
  if (ticket) {
    try { await api('DELETE', `/api/quick/${encodeURIComponent(ticket)}`); } catch { /* it expires by itself */ }
  }
}

/** Leaving the page leaves the queue: nobody should be seated at a table they never see. */
function leaveOnExit() {
  if (!waiting) return;
  const headers = csrf ? { 'X-CSRF-Token': csrf } : {};
  fetch(`/api/quick/${encodeURIComponent(waiting.ticket)}`, { method: 'DELETE', keepalive: true, headers, credentials: 'same-origin' });
}

async function init() {
  if (!$('#quick-form')) return;
  $('#quick-name').value = savedName();
  $('#quick-variant').addEventListener('change', fillSizes);
  $('#quick-form').addEventListener('submit', play);
  // The page's buttons are disabled until their handlers are here (the texts arrive
  // first): a click before would send the form to the server as a plain GET.
  $('#quick-play').disabled = false;
  $('#quick-cancel').addEventListener('click', cancel);
  $('#quick-bots-now').addEventListener('click', botsNow);
  window.addEventListener('pagehide', leaveOnExit);
  onLangChange(() => { fillGames(); showText(); showStatus(); });
  fillGames();
  showText();
  try {
    const info = await api('GET', '/api/quick');
    if (info && info.games) games = info.games;
    if (info && info.wait_seconds) waitSeconds = info.wait_seconds;
    fillGames();
    showText();
  } catch { /* keep the built-in games */ }
  ({ user, csrf } = await me());
  // A registered player plays under the account's name.
  $('#quick-name-field').hidden = Boolean(user);
  document.body.dataset.quickReady = 'true';
}

init();
