// /moderation: the accounts the farm detector flagged (their rating frozen), and a
// moderator's decisions about them: clear, reset the ratings, ban (server/results/moderation.py).
// Every decision is written to the audit log the page shows below.

import { t, initI18n, onLangChange, refusalText, formatDate } from './i18n.js';
import { el, $, api } from './common.js';

let found = null;
let failure = null;

function decideButton(name, action) {
  return el('button', { type: 'button', class: action === 'ban' ? 'danger' : '', dataset: { name, action }, text: t(`moderation.${action}`) });
}

function render() {
  if (failure) {
    const text = failure.status === 403 || failure.status === 401 ? t('moderation.forbidden') : refusalText(failure);
    $('#flagged').replaceChildren(el('p', { role: 'alert', text }));
    $('#log').replaceChildren();
    return;
  }
  if (!found) return;
  const head = ['moderation.account', 'moderation.flagged_at', 'moderation.ratings', 'moderation.reason', 'moderation.decide'];
  // A phone scrolls the table sideways (a region the keyboard reaches too).
  $('#flagged').replaceChildren(found.flagged.length === 0 ? el('p', { class: 'muted', text: t('moderation.none') })
    : el('div', { class: 'scroll-x', tabindex: '0' }, el('table', { class: 'rules-table moderation-table' },
      el('thead', {}, el('tr', {}, head.map((k) => el('th', { scope: 'col', text: t(k) })))),
      el('tbody', {}, found.flagged.map((row) => el('tr', { dataset: { name: row.name } },
        el('th', { scope: 'row' }, el('a', { href: `/player/${encodeURIComponent(row.name)}`, text: row.name })),
        el('td', { text: formatDate(new Date(row.flagged_at * 1000)) }),
        el('td', { text: Object.entries(row.ratings).map(([game, r]) => `${game} ${r}`).join(', ') }),
        el('td', { text: row.reason }),
        el('td', {}, ['clear', 'reset', 'ban'].map((a) => decideButton(row.name, a)))))))));
  $('#log').replaceChildren(...found.log.map((line) => el('li', {
    text: t('moderation.log_line', { at: formatDate(new Date(line.at * 1000)), moderator: line.moderator, action: line.action, name: line.name }),
  })));
}

async function load(method = 'GET', body = undefined) {
  try {
    found = await api(method, '/api/moderation', body);
    failure = null;
  } catch (err) {
    failure = err;
  }
  render();
}

function start() {
  initI18n();
  onLangChange(render);
  $('#flagged').addEventListener('click', (e) => {
    const button = e.target.closest('button[data-action]');
    if (button) load('POST', { name: button.dataset.name, action: button.dataset.action });
  });
  load();
}

start();
