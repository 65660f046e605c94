// The lobby's tables to watch: matches in play whose creator (or tournament director)
// lets anyone watch. A spectator sees the table, never a hand (/table/{id}?watch=1).

import { t, onLangChange } from './i18n.js';
import { el, $, api, setupLabel, variantLabel, botName } from './common.js';

const REFRESH_MS = 5000;
let listed = [];

function names(info) {
  return (info.seats || []).map((s) => (s.kind === 'bot' ? botName(s.name) : s.name) || t(`seat.${s.kind}`)).join(', ');
}

function item(info) {
  const score = (info.totals || []).join(' – ');
  return el('li', { class: 'table-item', 'data-table': info.table },
    el('div', { class: 'ti-main' },
      el('strong', { text: variantLabel(info.variant) }),
      el('span', { class: 'muted', text: ` · ${setupLabel(info.players, info.lines)} · ${t('table.deal', { n: info.deal || 1 })}` }),
      score ? el('span', { class: 'badge', text: score }) : null,
      info.watchers ? el('span', { class: 'badge', text: t('watch.count', { n: info.watchers }) }) : null),
    el('div', { class: 'ti-seats', text: names(info) }),
    el('div', { class: 'ti-actions' },
      el('a', {
        class: 'button', href: `/table/${encodeURIComponent(info.table)}?watch=1`,
        'aria-label': t('watch.link_aria', { names: names(info) }), text: t('watch.link'),
      })));
}

function render() {
  $('#watch-tables').replaceChildren(...(listed.length ? listed.map(item)
    : [el('li', { class: 'empty', text: t('watch.none') })]));
}

async function refresh() {
  try {
    const data = await api('GET', '/api/tables?watch=true');
    listed = (data && data.tables) || [];
    render();
  } catch { /* the open tables' list says the room is unreachable */ }
}

function init() {
  render();
  refresh();
  setInterval(() => { if (!document.hidden) refresh(); }, REFRESH_MS);
  onLangChange(render);
}

init();
