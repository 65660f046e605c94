// The top bar's account chip on every page: "Log in" for a guest, the player's name
// (a link to their page) once logged in. Pages include it with a #account-link element.

import { t, onLangChange } from './i18n.js';
import { me } from './common.js';

async function show() {
  const link = document.getElementById('account-link');
  if (!link) return;
  const { user } = await me();
  if (user) {
    link.textContent = user.name;
    link.href = '/account';
    link.setAttribute('aria-label', t('account.chip_user', { name: user.name }));
    link.dataset.user = user.name;
    // Its text is the name now, not a key that a change of language would write back.
    link.removeAttribute('data-i18n');
  } else {
    link.dataset.i18n = 'account.log_in';
    link.textContent = t('account.log_in');
    link.href = '/account';
    link.removeAttribute('aria-label');
    delete link.dataset.user;
  }
}

onLangChange(show);
show();
