// Words shared by the leaderboard and the player pages: a game's name, a rated name.

import { t } from './i18n.js';
import { setupLabel, variantLabel } from './common.js';

/** {variant, players, lines} of a game key ("italian-4", "buraco-4x4"), as ratings.py makes them. */
export function gameOf(key) {
  const m = /^([a-z]+)-(\d)(?:x(\d))?$/.exec(key || '');
  if (!m) return null;
  const players = Number(m[2]);
  let lines = 2;
  if (m[3]) lines = Number(m[3]);
  else if (players === 3 || players === 5) lines = players;
  else if (players === 6) lines = m[1] === 'italian' ? 3 : 2;
  return { variant: m[1], players, lines };
}

/** The game key of a table (ratings.py's game_key): "italian-2", "buraco-4x4". */
export function gameKey(variant, players, lines) {
  const usual = gameOf(`${variant}-${players}`);
  return usual && usual.lines === lines ? `${variant}-${players}` : `${variant}-${players}x${lines}`;
}

/** "Italian Burraco · 4 in pairs", from {variant, players, lines} or a game key. */
export function gameLabel(game) {
  const g = typeof game === 'string' ? gameOf(game) : game;
  if (!g) return String(game);
  return t('board.game_label', { variant: variantLabel(g.variant), table: setupLabel(g.players, g.lines) });
}

/** A rated name: a person's own, a bot level's as the lobby says it ("Bot: Expert"), a
 * bot account's marked as a bot's ("Robo (bot)"). */
export function ratedName(row) {
  if (row.program) return t('seat.program', { name: row.name });
  return row.kind === 'bot' || row.bot ? t('board.bot_name', { level: t(`bot.${row.name}`) }) : row.name;
}
