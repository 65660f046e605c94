// The table's chat panel: the messages of one channel (the players', or the
// spectators'), the quick messages in the reader's language, a text box, and a
// per-name mute kept in this browser.
//
// Every message is plain text: it is written with textContent, never as HTML.
// On desktop the panel sits in the side column, beside the table (collapsible);
// on phones it is a drawer opened by the chat button, closed by its own button.

import { t } from './i18n.js';
import { el, $ } from './common.js';

/** The quick messages, by code (burraco.server.chat.QUICK): said in each reader's language. */
export const QUICK = ['ciao', 'buona_fortuna', 'grazie', 'brava', 'bel_gioco', 'scusa', 'un_attimo', 'arrivederci'];
/** Characters a message holds at most (burraco.server.chat.LONGEST). */
export const LONGEST = 200;
const MUTED = 'burraco.muted';
/** Messages kept on the page. */
const KEEP = 100;

const C = {
  messages: [],
  send: null, // (message) => bool: sends over the table's socket
  mine: () => false, // (message) => bool: this page's own message
  enabled: true,
  unread: 0,
};

/** The names muted in this browser, whatever the table. */
export function mutedNames() {
  try { return new Set(JSON.parse(localStorage.getItem(MUTED) || '[]')); } catch { return new Set(); }
}

function saveMuted(names) {
  try { localStorage.setItem(MUTED, JSON.stringify([...names].slice(-200))); } catch { /* ignore */ }
}

/** Wire the panel: `send` sends a socket message, `mine` tells this page's own messages. */
export function initChat({ send, mine }) {
  C.send = send;
  C.mine = mine;
  $('#chat-quick').replaceChildren(...QUICK.map((code) => el('button', {
    type: 'button', class: 'chip quick', 'data-quick': code, text: t(`chat.quick.${code}`),
    onclick: () => say({ quick: code }),
  })));
  $('#chat-text').maxLength = LONGEST;
  $('#chat-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const box = $('#chat-text');
    const text = box.value.trim();
    if (!text) return;
    if (say({ text })) box.value = '';
  });
  $('#chat-button').addEventListener('click', () => openDrawer(!document.body.classList.contains('show-chat')));
  $('#chat-close').addEventListener('click', () => openDrawer(false));
  $('#chat-box').addEventListener('toggle', () => { if ($('#chat-box').open) markRead(); });
  $('#chat-log').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-mute]');
    if (b) toggleMute(b.dataset.mute);
  });
  $('#chat-muted').addEventListener('click', (ev) => {
    const b = ev.target.closest('button[data-unmute]');
    if (b) toggleMute(b.dataset.unmute);
  });
  renderChat();
}

function say(message) {
  return Boolean(C.send && C.send({ type: 'chat', ...message }));
}

/** Phones: the chat opens as a drawer over the hand, and closes with its button. */
function openDrawer(open) {
  document.body.classList.toggle('show-chat', open);
  document.body.classList.remove('show-moves');
  $('#chat-button').setAttribute('aria-expanded', String(open));
  if (open) {
    $('#side').hidden = false;
    $('#chat-box').open = true;
    markRead();
    $('#chat-text').focus();
  }
}

/** Whether a reader sees the panel now (a collapsed panel or a closed drawer does not). */
function visible() {
  const phone = window.matchMedia('(max-width: 760px)').matches;
  return $('#chat-box').open && (!phone || document.body.classList.contains('show-chat'));
}

function markRead() {
  C.unread = 0;
  renderUnread();
  const log = $('#chat-log');
  log.scrollTop = log.scrollHeight;
}

function renderUnread() {
  for (const badge of document.querySelectorAll('.chat-unread')) {
    badge.textContent = C.unread ? String(C.unread) : '';
    badge.hidden = !C.unread;
  }
  $('#chat-button').setAttribute('aria-label', C.unread ? t('chat.open_unread', { n: C.unread }) : t('chat.open'));
}

/** A `chat` message from the socket. */
export function onChat(m) {
  C.messages.push(m);
  if (C.messages.length > KEEP) C.messages.splice(0, C.messages.length - KEEP);
  if (!C.mine(m) && !mutedNames().has(m.name) && !visible()) C.unread += 1;
  renderChat();
  renderUnread();
}

/** A `chat_history` message: the channel's last messages, on (re)connecting. */
export function onChatHistory(m) {
  C.messages = (m.messages || []).slice(-KEEP);
  renderChat();
}

/** Chat on or off at this table (its creator's or the tournament director's choice). */
export function setChatEnabled(on) {
  if (C.enabled === on && $('#chat-form').dataset.ready) return;
  C.enabled = on;
  $('#chat-form').dataset.ready = '1';
  $('#chat-form').hidden = !on;
  $('#chat-quick').hidden = !on;
  $('#chat-off').hidden = on;
  $('#chat-button').hidden = !on;
}

/** The name a message is said under: a spectator without a name is "Spectator". */
function nameOf(m) {
  return m.name || t('chat.spectator');
}

/** Draw the messages (text only), the muted names, and keep the newest in view. */
export function renderChat() {
  const muted = mutedNames();
  const log = $('#chat-log');
  const atEnd = log.scrollHeight - log.scrollTop - log.clientHeight < 40;
  const shown = C.messages.filter((m) => !muted.has(m.name));
  log.replaceChildren(...shown.map((m) => {
    const mine = C.mine(m);
    const text = m.quick ? t(`chat.quick.${m.quick}`) : m.text;
    return el('li', { class: 'chat-line' + (mine ? ' mine' : '') + (m.quick ? ' quick' : ''), 'data-name': m.name },
      el('span', { class: 'chat-name', text: nameOf(m) }),
      el('span', { class: 'chat-text', text }),
      mine ? null : el('button', {
        type: 'button', class: 'chat-mute', 'data-mute': m.name,
        'aria-label': t('chat.mute', { name: nameOf(m) }), title: t('chat.mute', { name: nameOf(m) }), text: t('chat.mute_short'),
      }));
  }));
  if (!shown.length) log.appendChild(el('li', { class: 'chat-empty muted', text: t('chat.empty') }));
  if (atEnd || visible()) log.scrollTop = log.scrollHeight;
  const names = [...muted].filter((n) => C.messages.some((m) => m.name === n));
  $('#chat-muted').replaceChildren(...(names.length ? [el('span', { class: 'muted', text: t('chat.muted') })] : []),
    ...names.map((n) => el('button', {
      type: 'button', class: 'chip', 'data-unmute': n, text: t('chat.unmute', { name: n || t('chat.spectator') }),
    })));
  for (const b of $('#chat-quick').querySelectorAll('button[data-quick]')) b.textContent = t(`chat.quick.${b.dataset.quick}`);
}

function toggleMute(name) {
  const muted = mutedNames();
  if (muted.has(name)) muted.delete(name); else muted.add(name);
  saveMuted(muted);
  renderChat();
}

// Read-only handle for automated browser tests.
window.burracoChat = {
  get messages() { return C.messages.slice(); },
  get unread() { return C.unread; },
};
