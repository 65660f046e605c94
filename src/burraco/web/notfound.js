// The page of an address the room does not have (404, server/routes/shells.py): the room wrote
// its texts in the language of ?lang= or of the browser; a language the reader chose with
// the #lang button (i18n.js) is followed here, and the button works as on every page.

import { initI18n } from './i18n.js';

initI18n();
document.body.dataset.ready = 'true';
