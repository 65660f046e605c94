// /account: log in or sign up (a guest), or a player's own settings: language, password,
// tables in play, log out. The session is an HTTP-only cookie; api() adds the CSRF token.

import { t, initI18n, onLangChange, refusalText, setLang } from './i18n.js';
import { el, $, api, me, variantLabel } from './common.js';

function showTab(which) {
  const login = which === 'login';
  $('#tab-login').setAttribute('aria-selected', String(login));
  $('#tab-signup').setAttribute('aria-selected', String(!login));
  $('#login-panel').hidden = !login;
  $('#signup-panel').hidden = login;
  $('#guest-error').textContent = '';
}

function error(box, err) {
  box.textContent = refusalText(err);
}

async function afterLogin() {
  const { user } = await me(true);
  // The account's language follows the player from device to device.
  if (user) await setLang(user.language);
  const back = new URLSearchParams(location.search).get('next');
  // Only a path of this room: never an address elsewhere.
  if (back && back.startsWith('/') && !back.startsWith('//')) location.href = back;
  else await render();
}

/** The person's bot accounts, each with its tokens' first characters and their buttons. */
async function renderBots() {
  const list = $('#my-bots');
  try {
    const { bots } = await api('GET', '/api/account/bots');
    list.replaceChildren();
    if (!bots.length) list.append(el('li', { class: 'muted', text: t('bots.none') }));
    for (const bot of bots) {
      const live = bot.tokens.filter((k) => !k.revoked);
      const tokens = el('ul', { class: 'plain-list' }, live.map((k) => el('li', {},
        el('code', { text: `${k.hint}…` }), ' ',
        el('button', { type: 'button', text: t('bots.revoke'), 'aria-label': t('bots.revoke_of', { hint: k.hint }),
          onclick: () => botAction(`/api/account/bots/${encodeURIComponent(bot.name)}/revoke`, { hint: k.hint }) }))));
      list.append(el('li', { dataset: { bot: bot.name } },
        el('a', { href: `/player/${encodeURIComponent(bot.name)}`, text: bot.name }), ' ',
        el('button', { type: 'button', text: t('bots.new_token'), 'aria-label': t('bots.new_token_of', { name: bot.name }),
          onclick: () => botAction(`/api/account/bots/${encodeURIComponent(bot.name)}/tokens`) }),
        tokens));
    }
  } catch (err) {
    list.replaceChildren(el('li', { class: 'muted', text: refusalText(err) }));
  }
}

/** A bot request from this page; a new token is shown once. */
async function botAction(path, body = {}) {
  try {
    const res = await api('POST', path, body);
    $('#bot-token-box').hidden = !res.token;
    $('#bot-token').textContent = res.token || '';
    $('#member-status').textContent = '';
  } catch (err) { error($('#member-status'), err); }
  await renderBots();
}

async function render() {
  const { user } = await me();
  $('#guest').hidden = !!user;
  $('#member').hidden = !user;
  if (!user) return;
  $('#member-title').textContent = t('account.hello', { name: user.name });
  $('#member-name').value = user.name;
  $('#my-page').href = `/player/${encodeURIComponent(user.name)}`;
  $('#language').value = user.language;
  // The list is replaced whole once its answer is in: two renders at once (the page's
  // first and a change of language) listed every table twice.
  const list = $('#my-tables');
  try {
    const { tables } = await api('GET', '/api/me/tables');
    list.replaceChildren(...tables.map((info) => el('li', {},
      el('a', { href: `/table/${info.table}`, text: t('account.table_link', { game: variantLabel(info.variant), players: info.players }) }))));
    if (!tables.length) list.append(el('li', { class: 'muted', text: t('account.no_tables') }));
  } catch (err) {
    list.replaceChildren(el('li', { class: 'muted', text: refusalText(err) }));
  }
  await renderBots();
}

function wire() {
  $('#tab-login').addEventListener('click', () => showTab('login'));
  $('#tab-signup').addEventListener('click', () => showTab('signup'));
  $('#login-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await api('POST', '/api/account/login', { name: $('#login-name').value.trim(), password: $('#login-password').value });
      await afterLogin();
    } catch (err) { error($('#guest-error'), err); }
  });
  $('#signup-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const lang = document.documentElement.lang.startsWith('pt') ? 'pt' : document.documentElement.lang.slice(0, 2);
    try {
      await api('POST', '/api/account/signup', { name: $('#signup-name').value.trim(), password: $('#signup-password').value, language: ['en', 'it', 'pt'].includes(lang) ? lang : 'en' });
      await afterLogin();
    } catch (err) { error($('#guest-error'), err); }
  });
  $('#language').addEventListener('change', async () => {
    const language = $('#language').value;
    try {
      await api('POST', '/api/account/language', { language });
      await setLang(language);
      await me(true);
    } catch (err) { error($('#member-status'), err); }
  });
  $('#password-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      await api('POST', '/api/account/password', { old_password: $('#old-password').value, new_password: $('#new-password').value });
      $('#member-status').textContent = t('account.password_changed');
      $('#old-password').value = $('#new-password').value = '';
    } catch (err) { error($('#member-status'), err); }
  });
  $('#bot-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    await botAction('/api/account/bots', { name: $('#bot-name').value.trim() });
    $('#bot-name').value = '';
  });
  $('#log-out').addEventListener('click', async () => {
    await api('POST', '/api/account/logout');
    await me(true);
    showTab('login');
    await render();
  });
}

initI18n();
wire();
if (new URLSearchParams(location.search).get('tab') === 'signup') showTab('signup');
onLangChange(() => render());
render();
