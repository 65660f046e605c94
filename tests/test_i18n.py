"""Every word of every page in English, Italian and Brazilian Portuguese.

Static checks read ``src/burraco/web/``: the catalogues ``i18n/<lang>.json`` are
flat maps of key to text, every language has every key and every ``{param}`` of
the English text, every key the pages use exists, and no page writes literal
English past ``t()``. The browser tests open the lobby
and a table against a bot with Chromium set to Portuguese and to Italian (on a
phone's screen), play a turn, read the last move as a sentence, cycle the
language button and keep screenshots in ``artifacts/screenshots/``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from test_browser import (
    create_table,
    play_one_turn,
    shot,
    switch_language,
    wait_my_turn,
    wait_version_above,
)
from waits import ms

from burraco.bots.hints import WHY
from burraco.refusals import TEXTS as RULES
from burraco.server.chat import QUICK
from burraco.server.results.ratings import BOT_LEVELS
from burraco.server.routes.shells import page as served_page
from burraco.tournament.errors import PHASES, WORDS
from burraco.tournament.errors import TEXTS as DESK_RULES

WEB = Path(__file__).resolve().parent.parent / "src" / "burraco" / "web"
CATALOGUES = WEB / "i18n"
LANGS = ("en", "it", "pt")
# The words the desk's params hold (a result's field, "none"), each said as a text of its own.
DESK_WORDS = {word: word for words in WORDS.values() for word in words}

PLACEHOLDER = re.compile(r"\{([\w ]+)\}")
KEY_SHAPE = re.compile(r"^[a-z_]+(\.[\w\- ]+)+$")
# The forms of a counted message: key.one, key.other… (the categories of Intl.PluralRules).
CATEGORIES = ("zero", "one", "two", "few", "many", "other")
PLURAL_FORM = re.compile(rf"^(.+)\.({'|'.join(CATEGORIES)})$")
# The forms each language's plural rules need (CLDR; Italian's and Portuguese's "many", for
# a million and more, falls back to other).
NEEDED_FORMS = {"en": {"one", "other"}, "it": {"one", "other"}, "pt": {"one", "other"}}
# The sources' file numbers, which no page shows: "(002)", "la guida 000".
FILE_NUMBER = re.compile(
    r"\(00\d\)|\b(?:guide|guida|guia|summary|riassunto|resumo)\b[^.]{0,20}\b00\d\b"
)
# A Python template's fields: {cards}, {kind!r}, {margin:+d}.
TEMPLATE_FIELD = re.compile(r"\{(\w+)(?:![rsa])?(?::[^{}]*)?\}")
SERVER = WEB.parent / "server"
# The room's own error codes (RoomError, the socket's error messages, the HTTP answers).
ROOM_CODE = re.compile(r'(?:RoomError\(\s*|error_message\(\s*|"code":\s*)"([a-z_]+)"')
ROOM_CODES = [
    "too_many_reviews",
    "reviews_busy",
    "bad_login",
    "bad_name",
    "bad_password",
    "csrf",
    "login_needed",
    "name_taken",
    "name_look_alike",
    "blank_name",
    "login_wait",
    "illegal",
    "not_your_turn",
    "stale",
    "between_deals",
    "busy",
    "too_many_tables",
    "unavailable",
    "forbidden",
    "over",
    "bad_message",
    "unknown_action",
    "replaced",
    "not_found",
    "too_many",
    "too_many_sockets",
    "too_fast",
    "sync_repeated",
    "too_large",
    # Spectators and chat.
    "not_watchable",
    "watchers_full",
    "watching_too_many",
    "spectator",
    "chat_off",
    "chat_empty",
    "chat_too_long",
    "chat_too_fast",
    "quick_gone",
    "no_game",
    "no_player",
    # Bot accounts (docs/bots.md).
    "bad_token",
    "no_bot",
    "not_accepted",
    "too_many_bots",
    "too_many_tokens",
    "chat_quick_only",
    "bot_no_hint",
    # Fair play: no hint or analysis during a rated or tournament match.
    "no_hints_rated",
    "no_hints_tournament",
    # Moderation (server/results/moderation.py).
    "banned",
]

# Keys the code builds from a prefix and a value (t('variant.' + name),
# t(`score.end.${reason}`)…): the values each prefix takes.
DYNAMIC_KEYS = {
    "variant.": ["italian", "online", "buraco", "canasta"],
    "status.": ["waiting", "playing", "over"],
    "seat.": ["empty", "bot", "human"],
    "review.tag.": ["blunder", "mistake", "inaccuracy"],
    "score.": [
        "melded",
        "in_hand",
        "burracos",
        "closing",
        "pozzetto_penalty",
        "relancinho",
        "red_threes",
    ],
    "score.end.": ["closed", "went out", "stock", "stall", "time-out"],
    # Why a table made rated plays unrated (server/results/fairplay.py).
    "score.unrated_": ["same_owner", "pair_cap"],
    "moderation.": ["clear", "reset", "ban"],
    "grade.": ["clean", "semi-clean", "dirty", "twos", "jokers", "twos-and-jokers"],
    "format.": ["danish", "mitchell", "round-robin", "knockout"],
    "format_help.": ["danish", "mitchell", "round-robin", "knockout"],
    "kind.": ["pairs_short", "individual_short"],
    "phase.": ["registration", "seating", "playing", "closed", "finished"],
    "phase_short.": ["registration", "seating", "playing", "closed", "finished"],
    "dir.": ["N", "E", "S", "W", "NS", "EW"],
    "bot_short.": list(BOT_LEVELS),
    "bot.": list(BOT_LEVELS),
    "outcome.": ["win", "loss", "draw"],
    "tour.": ["won", "lost", "draw"],
    "move.": ["draw", "redraw", "meld", "extend", "discard", "pass", "abandon", "start"],
    "hint.": ["draw", "redraw", "meld", "extend", "discard", "pass"],
    "keys.letter.": ["draw", "take", "discard", "sort", "meld", "hint"],
    "rule.": list(RULES),
    "desk.rule.": list(DESK_RULES),
    "desk.where.": list(PHASES),
    "desk.word.": list(DESK_WORDS),
    "hint.why.": list(WHY),
    "error.": ROOM_CODES,
    "chat.quick.": list(QUICK),
}
# Keys that i18n.js's moveText/hintText and table.js pick by condition.
CONDITIONAL_KEYS = [
    "move.take",
    "move.take_cards",
    "move.time-out",
    "move.time-out_seat",
    "move.with_pozzetto",
    "move.unknown",
    "hint.take",
    "hint.take_cards",
    "mark.burraco",
    "mark.canastra",
    "mark.canasta",
    "card.joker",
]


def bot_levels(page: Any, rated: str) -> list[str]:
    """The lobby's bot levels in the page's words, once each carries its rating in the
    chosen game ("Esperto · punteggio 1400"): the words before the rating."""
    page.wait_for_function(
        "(w) => [...document.querySelectorAll('#bot option')].every(o => o.textContent.includes(w))",
        arg=f" · {rated} ",
    )
    options = page.eval_on_selector_all("#bot option", "os => os.map(o => o.textContent)")
    pattern = re.compile(rf"^(.+) · {rated} \d+$")
    found = [pattern.match(o) for o in options]
    assert all(found), options
    return [m.group(1) for m in found if m]


def catalogue(path: Path) -> dict[str, str]:
    """One language's catalogue: a JSON object of key -> text, flat, each key once."""

    def no_twice(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in pairs]
        twice = sorted({k for k in keys if keys.count(k) > 1})
        assert not twice, f"{path.name}: {twice} twice"
        return dict(pairs)

    found = json.loads(path.read_text(encoding="utf-8"), object_pairs_hook=no_twice)
    assert isinstance(found, dict), f"{path.name} is not an object"
    for key, text in found.items():
        assert isinstance(text, str), f"{path.name} {key}: not a text but {text!r}"
    return found


def texts() -> dict[str, dict[str, str]]:
    """The catalogues of web/i18n/: language -> key -> text."""
    return {path.stem: catalogue(path) for path in sorted(CATALOGUES.glob("*.json"))}


def counted(catalogue: dict[str, str]) -> dict[str, dict[str, str]]:
    """The counted messages of a language's catalogue: key -> category -> form."""
    found: dict[str, dict[str, str]] = {}
    for key, text in catalogue.items():
        m = PLURAL_FORM.match(key)
        if m:
            found.setdefault(m.group(1), {})[m.group(2)] = text
    # A lone form is a plain key that ends like one ("hint.why.other": the reason "other").
    return {key: forms for key, forms in found.items() if len(forms) > 1}


def says(catalogue: dict[str, str], key: str) -> bool:
    """Whether the catalogue has key, as a plain message or a counted one."""
    return key in catalogue or f"{key}.other" in catalogue


def placeholders(catalogue: dict[str, str], key: str) -> set[str]:
    """The params a message fills: of a counted one, those of all its forms."""
    forms = counted(catalogue).get(key, {key: catalogue.get(key, "")})
    return {p for text in forms.values() for p in PLACEHOLDER.findall(text)}


def js_sources() -> dict[str, str]:
    return {p.name: p.read_text(encoding="utf-8") for p in sorted(WEB.glob("*.js"))}


def html_sources() -> dict[str, str]:
    """The pages as the room serves them, their shared parts filled in."""
    return {p.name: served_page(p).body.decode("utf-8") for p in sorted(WEB.glob("*.html"))}


def first_argument(source: str, start: int) -> str:
    """The text of a call's first argument, from just after its opening parenthesis."""
    depth = 0
    quote = ""
    i = start
    while i < len(source):
        c = source[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = ""
        elif c in "'\"`":
            quote = c
        elif c in "([{":
            depth += 1
        elif c in ")]}":
            if depth == 0:
                break
            depth -= 1
        elif c == "," and depth == 0:
            break
        i += 1
    return source[start:i]


def used_keys() -> tuple[dict[str, set[str]], set[str]]:
    """Literal keys of t() and data-i18n* per file, and the prefixes of keys built in code."""
    used: dict[str, set[str]] = {}
    prefixes: set[str] = set()
    for name, source in {**js_sources(), **html_sources()}.items():
        if name.endswith(".js"):
            # Comment lines only tell (i18n.js's own shows t("key") and data-i18n="key").
            source = "\n".join(
                "" if line.lstrip().startswith(("//", "*", "/*")) else line
                for line in source.splitlines()
            )
        keys = used.setdefault(name, set())
        for m in re.finditer(r"data-i18n(?:-aria|-placeholder|-title)?=\"([^\"]+)\"", source):
            keys.add(m.group(1))
        for m in re.finditer(r"\btn?\(", source):
            arg = first_argument(source, m.end())
            for lit in re.finditer(r"'([^'\\]*)'|\"([^\"\\]*)\"|`([^`\\]*)`", arg):
                text = next(g for g in lit.groups() if g is not None)
                if text.startswith("${"):
                    continue  # i18n.js's own tn(): a counted message's form, by its key
                if "${" in text:
                    prefixes.add(text.split("${")[0])
                elif text.endswith("."):
                    prefixes.add(text)
                elif KEY_SHAPE.match(text):
                    keys.add(text)
    return used, prefixes


def missing_in_translation(found: dict[str, dict[str, str]]) -> list[str]:
    """What a translation lacks or adds against English: keys, and {placeholders}.

    Every key of English is in every language, and a language has no other key but the
    forms its plural rules add to a counted message (Polish's key.few). Every placeholder
    of an English text is in the translation of its key, and the translation fills no
    other: t() would show "{other}" as it stands. A counted message's forms are measured
    against English's key.other; a form for one (or few…) may leave out {n}, as "a card"
    does, and any form may say {n}, which tn() always gives.
    """
    english = found["en"]
    english_counted = counted(english)
    wrong: list[str] = []
    for lang, texts_ in sorted(found.items()):
        if lang == "en":
            continue
        wrong += [f"{lang} lacks {key}" for key in english if key not in texts_]
        for key, text in texts_.items():
            form = PLURAL_FORM.match(key)
            message = form.group(1) if form and form.group(1) in english_counted else None
            if message is not None:
                wanted = set(PLACEHOLDER.findall(english[f"{message}.other"]))
                allowed = placeholders(english, message) | {"n"}
                if form and form.group(2) != "other":
                    wanted.discard("n")
            elif key in english:
                wanted = allowed = set(PLACEHOLDER.findall(english[key]))
            else:
                wrong.append(f"{lang} has {key}, which English has not")
                continue
            said = set(PLACEHOLDER.findall(text))
            wrong += [f"{lang} {key} lacks {{{p}}}" for p in sorted(wanted - said)]
            wrong += [
                f"{lang} {key} fills {{{p}}}, unknown in English" for p in sorted(said - allowed)
            ]
    return wrong


def test_the_catalogues_are_flat_maps_of_every_language() -> None:
    """One catalogue per language of i18n.js's LANGS, each a JSON object of non-empty texts."""
    found = texts()
    assert tuple(found) == tuple(sorted(LANGS))
    langs = re.search(r"export const LANGS = \[([^\]]*)\]", js_sources()["i18n.js"])
    assert langs and re.findall(r"'(\w+)'", langs.group(1)) == list(LANGS)
    assert len(found["en"]) >= 900, len(found["en"])
    for lang, texts_ in found.items():
        empty = [key for key, text in texts_.items() if not text.strip()]
        assert not empty, f"{lang}: empty {empty}"
        bad = [key for key in texts_ if not KEY_SHAPE.match(key)]
        assert not bad, f"{lang}: keys not shaped area.name: {bad}"


def test_every_language_has_every_key_and_every_placeholder_of_english() -> None:
    wrong = missing_in_translation(texts())
    assert not wrong, "\n".join(wrong)


def test_the_check_of_translations_finds_what_is_missing() -> None:
    """A key left out, a placeholder dropped or invented, a stray key: each is named; a form
    for one may leave out {n}, and a language may add the forms its plural rules need."""
    en = {"a.b": "{name} left", "c.n.one": "{n} card", "c.n.other": "{n} cards of {name}"}
    good = {
        "a.b": "{name} è uscito",
        "c.n.one": "una carta di {name}",
        "c.n.other": "{n} carte di {name}",
        "c.n.few": "{n} karty {name}",
    }
    assert missing_in_translation({"en": en, "it": good}) == []
    assert missing_in_translation({"en": en, "it": {**good, "a.b": "è uscito"}}) == [
        "it a.b lacks {name}"
    ]
    assert missing_in_translation(
        {"en": en, "it": {k: v for k, v in good.items() if k != "a.b"}}
    ) == ["it lacks a.b"]
    assert missing_in_translation({"en": en, "it": {**good, "c.n.other": "carte di {name}"}}) == [
        "it c.n.other lacks {n}"
    ]
    assert missing_in_translation({"en": en, "it": {**good, "a.b": "{nome} è uscito {name}"}}) == [
        "it a.b fills {nome}, unknown in English"
    ]
    assert missing_in_translation({"en": en, "it": {**good, "x.y": "in più"}}) == [
        "it has x.y, which English has not"
    ]


def test_every_key_the_pages_use_exists_in_english() -> None:
    english = texts()["en"]
    used, prefixes = used_keys()
    for name, keys in used.items():
        missing = sorted(k for k in keys if not says(english, k))
        assert not missing, f"{name} uses {missing}"
    for prefix, values in DYNAMIC_KEYS.items():
        missing = [prefix + v for v in values if not says(english, prefix + v)]
        assert not missing, missing
    missing = [k for k in CONDITIONAL_KEYS if not says(english, k)]
    assert not missing, missing
    # Every prefix the code builds keys from is listed above.
    unknown = sorted(p for p in prefixes if p not in DYNAMIC_KEYS)
    assert not unknown, f"list the keys of these prefixes in DYNAMIC_KEYS: {unknown}"


def test_the_lobby_and_the_desk_offer_every_bot_level() -> None:
    """Each level the room seats can be chosen where bots are chosen, and a bot seat of
    any level ("learned bot 1") is named in the page's language."""
    pages = html_sources()
    for page, select in (("index.html", "bot"), ("desk.html", "bot-level")):
        block = pages[page].split(f'<select id="{select}"', 1)[1].split("</select>", 1)[0]
        assert re.findall(r'<option value="(\w+)"', block) == list(BOT_LEVELS), page
    assert f"/^({'|'.join(BOT_LEVELS)}) bot (\\d+)$/" in js_sources()["common.js"]


def test_every_refusal_and_hint_reason_of_the_engine_has_its_text() -> None:
    """burraco.refusals.TEXTS and burraco.bots.hints.WHY are said in the page's language:
    every code has its key in English (the key-parity test carries it to it and pt)."""
    english = texts()["en"]
    missing = [f"rule.{code}" for code in RULES if not says(english, f"rule.{code}")]
    missing += [f"hint.why.{code}" for code in WHY if not says(english, f"hint.why.{code}")]
    assert not missing, missing
    assert says(english, "hint.margin")
    # No key for a code the engine no longer has (a counted message by its name).
    names = {PLURAL_FORM.sub(r"\1", k) for k in english}
    stale = [k for k in names if k.startswith("rule.") and k[5:] not in RULES]
    stale += [k for k in names if k.startswith("hint.why.") and k[9:] not in WHY]
    assert not stale, stale


def test_the_refusal_and_hint_texts_take_the_engine_templates_params() -> None:
    """Each rule.<code> (and hint.why.<code>) fills exactly the params of its English template."""
    english = texts()["en"]
    for prefix, catalogue in (("rule.", RULES), ("hint.why.", WHY)):
        for code, template in catalogue.items():
            wanted = set(TEMPLATE_FIELD.findall(template))
            found = placeholders(english, prefix + code)
            assert found == wanted, f"{prefix}{code}: {sorted(found)} != {sorted(wanted)}"


def test_every_tournament_error_has_its_text_in_every_language() -> None:
    """Each code of burraco.tournament.errors.TEXTS (and each phase its rules name) is said
    in English, Italian and Portuguese with exactly the params of its English template,
    and no language keeps a key for a code the tournament no longer has."""
    found = texts()
    for lang in LANGS:
        for prefix, catalogue in (
            ("desk.rule.", DESK_RULES),
            ("desk.where.", PHASES),
            ("desk.word.", DESK_WORDS),
        ):
            for code, template in catalogue.items():
                key = prefix + code
                assert says(found[lang], key), f"{lang} lacks {key}"
                wanted = set(TEMPLATE_FIELD.findall(template))
                said = placeholders(found[lang], key)
                assert said == wanted, f"{lang} {key}: {sorted(said)} != {sorted(wanted)}"
            names = {PLURAL_FORM.sub(r"\1", k) for k in found[lang]}
            stale = [k for k in names if k.startswith(prefix) and k[len(prefix) :] not in catalogue]
            assert not stale, f"{lang}: {stale}"


def test_every_error_code_of_the_room_has_its_text() -> None:
    """Each code the room's Python answers with (RoomError, error messages, HTTP bodies)
    is listed in ROOM_CODES, and each has its error.<code> sentence."""
    english = texts()["en"]
    found = {
        m.group(1)
        for path in sorted(SERVER.rglob("*.py"))
        for m in ROOM_CODE.finditer(path.read_text(encoding="utf-8"))
    }
    assert found, "no error code found in the server's sources"
    unknown = sorted(found - set(ROOM_CODES))
    assert not unknown, f"say these codes in i18n.js and list them in ROOM_CODES: {unknown}"
    missing = [f"error.{code}" for code in ROOM_CODES if not says(english, f"error.{code}")]
    assert not missing, missing


def test_every_counted_message_has_the_forms_its_language_needs() -> None:
    """A counted message ("{n} cards") has a form for each plural category its language's
    rules give (English, Italian and Portuguese: one and other), in every language, and no
    language keeps the same message uncounted beside it."""
    found = texts()
    every = set().union(*(set(counted(found[lang])) for lang in LANGS))
    assert len(every) >= 20, sorted(every)  # the catalogue's counted messages
    for lang in LANGS:
        forms = counted(found[lang])
        for key in sorted(every):
            lacking = NEEDED_FORMS[lang] - set(forms.get(key, {}))
            assert not lacking, f"{lang} {key} lacks its forms {sorted(lacking)}"
            assert key not in found[lang], f"{lang} {key} is said both counted and not"


def test_the_counted_words_agree_with_their_number() -> None:
    """What the players met ("1 turni", "+1 punti", "1 carte"): a count of one takes the
    singular in the one form, and a count of many the plural in the other."""
    found = texts()
    plural = {
        "en": r"(card|point|round|deal|move|result|second|entrant|message|spectator)s",
        "it": r"(carte|punti|turni|smazzate|mosse|risultati|secondi|iscritti|messaggi|spettatori)",
        "pt": r"(cartas|pontos|rodadas|mãos|jogadas|resultados|segundos|inscritos|mensagens)",
    }
    for lang in LANGS:
        after_count = re.compile(rf"\{{(?:n|s|margin)\}} {plural[lang]}\b")
        for key, forms in counted(found[lang]).items():
            assert not after_count.search(forms["one"]), f"{lang} {key}.one: {forms['one']}"
    it = counted(found["it"])
    assert it["desk.n_rounds"] == {"one": "{n} turno", "other": "{n} turni"}
    assert "punto" in it["hint.margin"]["one"] and "punti" in it["hint.margin"]["other"]
    assert "serve " in it["hint.why.take_fits"]["one"]


# The glossary of docs/translating.md: a concept, the English words that say it, and the one
# word Italian and Portuguese say it with, on every page (and the words they must not use
# for it). Placeholders ({players}) are no words.
@dataclass(frozen=True)
class Term:
    concept: str
    en: str
    it: str
    pt: str
    not_it: str | None = None
    not_pt: str | None = None


GLOSSARY = (
    Term("not rated", r"\bnot rated\b|\bunrated\b", r"\bsenza punteggio\b", r"\bsem rating\b"),
    Term(
        "rated",
        r"\brated\b",
        r"\bpunteggio?\b",
        r"\brating\b",
        not_it=r"classific",
        not_pt=r"pontua|\bvale rating\b",
    ),
    Term(
        "rating",
        r"\bratings?\b",
        r"\bpunteggio?\b",
        r"\bratings?\b",
        not_it=r"classific",
        not_pt=r"pontua",
    ),
    Term("leaderboard", r"\bleaderboards?\b", r"\bclassific[ah]e?\b", r"\bclassifica(ção|ções)\b"),
    Term("players", r"\bplayers\b", r"\bgiocatori\b", r"\bjogadores\b"),
)
# Texts that say a glossary's English word for something else: the rules' pages and the
# engine's and the tournament's refusals say "players" of how many sit ("for 2 players").
GLOSSARY_ASIDE = re.compile(r"^(rules|rule|desk\.rule)\.")


def glossary_breaches(found: dict[str, dict[str, str]]) -> list[str]:
    """Every text whose English says a glossary's concept where Italian or Portuguese does
    not say its word, or says a word the glossary rules out for it."""
    wrong = []
    for key, english in found["en"].items():
        if GLOSSARY_ASIDE.match(key):
            continue
        said = PLACEHOLDER.sub("", english)
        for term in GLOSSARY:
            if not re.search(term.en, said, re.IGNORECASE):
                continue
            for lang, word, banned in (("it", term.it, term.not_it), ("pt", term.pt, term.not_pt)):
                text = PLACEHOLDER.sub("", found[lang][key])
                if not re.search(word, text, re.IGNORECASE):
                    wrong.append(f"{lang} {key} says {term.concept} without {word}: {text}")
                if banned and re.search(banned, text, re.IGNORECASE):
                    wrong.append(f"{lang} {key} says {term.concept} with {banned}: {text}")
    return wrong


def test_every_page_says_each_concept_with_the_glossarys_word() -> None:
    """Issue 31: "rated" was "A punteggio" in the lobby and "Valida per la classifica" on a
    bot's page, and Portuguese said "rating" here and "Pontuação" there."""
    wrong = glossary_breaches(texts())
    assert not wrong, "\n".join(wrong)


def test_the_glossary_check_finds_a_stray_word() -> None:
    found = {
        "en": {"a.rated": "Rated", "b.players": "{players} players", "rules.x": "2 players"},
        "it": {"a.rated": "Valida per la classifica", "b.players": "{players} giocatori"},
        "pt": {"a.rated": "Vale rating", "b.players": "{players} pessoas"},
    }
    assert glossary_breaches(found) == [
        "it a.rated says rated without \\bpunteggio?\\b: Valida per la classifica",
        "it a.rated says rated with classific: Valida per la classifica",
        "pt a.rated says rated with pontua|\\bvale rating\\b: Vale rating",
        "pt b.players says players without \\bjogadores\\b:  pessoas",
    ]


def test_the_players_filter_agrees_with_players() -> None:
    """ "Jogadores: Todas": the players' filter says its "any" in the gender of players
    (jogadores, giocatori), the rated filter in that of tables (mesas, tavoli)."""
    found = texts()
    assert found["pt"]["filter.any_players"] == "Todos"
    assert found["it"]["filter.any_players"] == "Tutti"
    assert "t('filter.any_players')" in js_sources()["lobby.js"]


def test_each_language_has_its_own_distinct_letters_for_the_keys() -> None:
    """The table's keys (table.js onTableKey, keys.letter.<action>): one letter per action
    in every language, none two actions', none a key the table has for another use (the
    digits name melds, ? opens the keys' window)."""
    actions = re.search(r"const LETTER_ACTIONS = \[([^\]]*)\]", js_sources()["table.js"])
    assert actions
    wanted = re.findall(r"'(\w+)'", actions.group(1))
    for lang, found in texts().items():
        letters = {a: found[f"keys.letter.{a}"] for a in wanted}
        assert all(re.fullmatch(r"[A-Z]", v) for v in letters.values()), (lang, letters)
        assert len(set(letters.values())) == len(letters), (lang, letters)
    assert texts()["it"]["keys.letter.draw"] == "P"  # pesca
    assert texts()["pt"]["keys.letter.draw"] == "C"  # comprar


def test_no_text_shows_the_sources_file_numbers() -> None:
    """The rules' sources are numbered files (000-003) for the engineers; a player reads
    "Burraco online", never "Burraco online (002)" or "la guida 000"."""
    for lang, catalogue in texts().items():
        shown = [f"{key}: {text}" for key, text in catalogue.items() if FILE_NUMBER.search(text)]
        assert not shown, f"{lang}:\n" + "\n".join(shown)
    for name, source in html_sources().items():
        parser = _Texts()
        parser.feed(source)
        shown = [text for text in parser.all if FILE_NUMBER.search(text)]
        assert not shown, f"{name}: {shown}"
    assert FILE_NUMBER.search("Burraco online (002)") and FILE_NUMBER.search("la guida 000 e")


class _Texts(HTMLParser):
    """Text nodes with letters, and the attributes a person reads, outside data-i18n*."""

    def __init__(self) -> None:
        super().__init__()
        self.stack: list[dict[str, str | None]] = []
        self.bare: list[str] = []
        #: Every text node and read attribute, translated or not.
        self.all: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.all += [
            v for k, v in attrs if v and k in ("aria-label", "placeholder", "title", "alt")
        ]
        for attr, marker in (
            ("aria-label", "data-i18n-aria"),
            ("placeholder", "data-i18n-placeholder"),
            ("title", "data-i18n-title"),
        ):
            if a.get(attr) and re.search(r"[A-Za-z]{2}", a[attr] or "") and marker not in a:
                self.bare.append(f"<{tag} {attr}={a[attr]!r}>")
        if tag not in ("meta", "link", "input", "br", "img"):
            self.stack.append(a)

    def handle_endtag(self, tag: str) -> None:
        if self.stack and tag not in ("meta", "link", "input", "br", "img"):
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        self.all.append(data)
        if re.search(r"[A-Za-z]{2}", data) and not (self.stack and "data-i18n" in self.stack[-1]):
            self.bare.append(data.strip())


def test_the_html_pages_write_no_text_past_i18n() -> None:
    for name, source in html_sources().items():
        parser = _Texts()
        parser.feed(source)
        # The #lang menu is written by applyI18n.
        # Each language's own name is written in that language, on every page.
        bare = [b for b in parser.bare if b not in ("Italiano", "English", "Português")]
        assert not bare, f"{name}: {bare}"


def scan_string(source: str, i: int) -> tuple[str, int]:
    """The JS string literal that starts at source[i]: its text without its ${…}, and its end."""
    quote = source[i]
    out = []
    j = i + 1
    while j < len(source) and source[j] != quote:
        if source[j] == "\\":
            out.append(source[j : j + 2])
            j += 2
        elif quote == "`" and source.startswith("${", j):
            depth = 0
            while j < len(source):
                if source[j] in "'\"`" and depth > 0:
                    j = scan_string(source, j)[1]  # a string inside the substitution
                elif source[j] == "{":
                    depth += 1
                elif source[j] == "}":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            j += 1
        else:
            out.append(source[j])
            j += 1
    return "".join(out), j


def string_at(source: str, i: int) -> str | None:
    """The text of the JS string literal that starts at source[i], without its ${…}; or None."""
    if source[i : i + 1] not in ("'", '"', "`"):
        return None
    return scan_string(source, i)[0]


def test_the_scripts_write_no_literal_english() -> None:
    """Texts, titles, labels and messages in the scripts come from t() (a heuristic)."""
    writes = re.compile(
        r"\b(?:text|title|placeholder|'aria-label')\s*:\s*"
        r"|\.(?:textContent|title|placeholder)\s*=\s*"
        r"|setAttribute\('(?:aria-label|title|placeholder)',\s*"
        r"|\b(?:toast|alert|confirm|prompt)\("
    )
    for name, source in js_sources().items():
        assert not re.search(r"\.toLocale(?:Time|Date)?String\(", source), (
            f"{name}: format dates and times with formatTime/formatDate of i18n.js"
        )
        for m in writes.finditer(source):
            literal = string_at(source, m.end())
            if literal is None:
                continue
            line = source.count("\n", 0, m.start()) + 1
            assert not re.search(r"[A-Za-z]{2}", literal), f"{name}:{line}: {literal!r}"


# ---------------------------------------------------------------- in Chromium

# The room's notation of a move ("extend 0 AD", "discard 9S", "Anna: draw").
RAW_MOVE = re.compile(
    r"\bextend \d|\b(10|[2-9AJQK])[SHDC]\b|\bJK\b"
    r"|: (draw|redraw|take|pass|meld|discard)\b|^(draw|redraw|take|pass)$"
)
# Its verbs, which no Italian or Portuguese sentence has.
ENGLISH_VERB = re.compile(r"\b(draw|redraw|take|meld|extend|discard|pass)\b")
RAW_KEY = re.compile(
    r"\b(app|lobby|table|seat|score|move|hint|desk|tour|replay|variant|setup|bot|mark)\.[a-z_]+"
)
PT_VERBS = ("comprou", "pegou", "baixou", "adicionou", "descartou", "passou")
IT_VERBS = ("ha pescato", "ha raccolto", "ha calato", "ha aggiunto", "ha scartato", "ha passato")


def play_a_turn(page: Any) -> None:
    """Draw from the stock and discard a legal card, by clicks; then wait for the bot."""
    assert play_one_turn(page)
    wait_my_turn(page)


def lang_button(page: Any) -> tuple[str, ...]:
    """The #lang menu's button: its visible text, its accessible name, the page's language."""
    found: list[str] = page.evaluate(
        """() => { const b = document.querySelector('#lang > summary');
                   return [b.textContent, b.getAttribute('aria-label'), document.documentElement.lang]; }"""
    )
    return tuple(found)


def visible_text(page: Any) -> str:
    return str(page.inner_text("body"))


def moves_in_every_language(page: Any) -> dict[str, list[str]]:
    """moveText for every kind of action, in each language (the page's i18n module)."""
    found: dict[str, list[str]] = page.evaluate(
        """async () => {
          const m = await import('/static/i18n.js');
          const before = m.getLang();
          const actions = ['draw', 'redraw', 'take', 'take 7H 7S', 'meld 5H 6H 7H', 'extend 0 AD',
                           'discard 9S', 'discard JK', 'pass', 'time-out', 'abandon', 'start'];
          const out = {};
          for (const l of m.LANGS) {
            await m.setLang(l);
            out[l] = actions.map((a) => m.moveText(a, 'Anna'));
            out[l].push(m.moveText('time-out', ''));
            out[l].push(m.moveText('discard 10C', 'Anna', { pozzetto: true }));
            out[l].push(m.hintText('extend 2 QH', ''));
          }
          await m.setLang(before);
          return out;
        }"""
    )
    return found


def test_a_portuguese_player_reads_the_lobby_and_the_table_in_portuguese(
    browser: Any, tmp_path: Path
) -> None:
    from roomserver import RoomServer

    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05) as server:
        context = browser.new_context(locale="pt-BR", viewport={"width": 1280, "height": 800})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}/")
        page.wait_for_selector("#tables-status:not(:empty)")
        assert lang_button(page) == ("Português", "Idioma: Português", "pt-BR")
        lobby = visible_text(page)
        for word in ("Nova mesa", "Criar a mesa", "Mesas abertas", "Seu nome", "Atualizado às"):
            assert word in lobby, word
        assert bot_levels(page, "rating") == [
            "Iniciante",
            "Intermediário",
            "Especialista",
            "Autodidata",
        ]
        assert page.title() == "Sala de Buraco"
        assert not re.search(r"\b(AM|PM)\b", lobby)
        shot(page, "lobby-pt")
        # None takes the plural in Brazil ("0 cartas"), one the singular.
        counted = page.evaluate(
            """async () => {
              const m = await import('/static/i18n.js');
              return [0, 1, 2].map((n) => m.tn('table.pile_hidden', n));
            }"""
        )
        assert counted == ["+0 viradas", "+1 virada", "+2 viradas"], counted

        create_table(page, server.url, name="Ana", start=True)
        board = visible_text(page)
        for word in ("Dica", "Abandonar", "Jogadas", "Nossa equipe", "Mão 1 de 1"):
            assert word in board, word
        play_a_turn(page)
        last = page.inner_text("#last-move")
        assert any(v in last for v in PT_VERBS), last
        assert not RAW_MOVE.search(last) and not ENGLISH_VERB.search(last), last
        log = page.eval_on_selector_all("#log li", "els => els.map(e => e.textContent)")
        assert any(line.startswith("Ana comprou do monte") for line in log), log
        assert any(line.startswith("Ana descartou ") for line in log), log
        for line in log:
            assert not RAW_MOVE.search(line) and not ENGLISH_VERB.search(line), line
        body = visible_text(page)
        assert "Bot intermediário 1" in body
        assert not RAW_KEY.search(body), RAW_KEY.search(body)
        shot(page, "table-pt")

        # en → it → pt: the menu's button shows the language in use, by its own name.
        switch_language(page)
        assert lang_button(page) == ("English", "Language: English", "en")
        assert re.search(
            r"\b(drew|took|laid down|added|discarded|passed)\b", page.inner_text("#last-move")
        )
        switch_language(page)
        assert lang_button(page) == ("Italiano", "Lingua: Italiano", "it")
        assert any(v in page.inner_text("#last-move") for v in IT_VERBS)
        assert "Consiglio" in visible_text(page)
        switch_language(page)
        assert lang_button(page) == ("Português", "Idioma: Português", "pt-BR")
        assert page.evaluate("() => localStorage.getItem('burraco.lang')") == "pt"

        sentences = moves_in_every_language(page)
        assert sentences["en"][5] == "Anna added A♦ to meld 1"
        assert sentences["it"][5] == "Anna ha aggiunto A♦ alla combinazione 1"
        assert sentences["pt"][5] == "Anna adicionou A♦ ao jogo 1"
        assert sentences["pt"][13] == "Anna descartou 10♣ e pegou o morto"
        assert sentences["it"][14] == "aggiungi Q♥ alla combinazione 3"
        for lang, lines in sentences.items():
            assert len(set(lines)) == len(lines), (lang, lines)
            for line in lines:
                assert "{" not in line and not RAW_MOVE.search(line), (lang, line)
                assert lang == "en" or not ENGLISH_VERB.search(line), (lang, line)
                assert not RAW_KEY.search(line), (lang, line)
        assert not errors, errors
        context.close()


def test_an_italian_player_on_a_phone_reads_the_table_in_italian(
    browser: Any, tmp_path: Path
) -> None:
    from roomserver import RoomServer

    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05) as server:
        context = browser.new_context(
            locale="it-IT", viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True
        )
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}/")
        page.wait_for_selector("#tables-status:not(:empty)")
        assert lang_button(page) == ("Italiano", "Lingua: Italiano", "it")
        lobby = visible_text(page)
        for word in ("Nuovo tavolo", "Crea il tavolo", "Tavoli aperti", "Aggiornato alle"):
            assert word in lobby, word
        assert re.search(r"Aggiornato alle \d{2}:\d{2}:\d{2}(?!\s*[AP]M)", lobby), lobby
        assert bot_levels(page, "punteggio") == [
            "Principiante",
            "Intermedio",
            "Esperto",
            "Autodidatta",
        ]
        shot(page, "lobby-it")

        create_table(page, server.url, name="Anna", start=True)
        play_a_turn(page)
        last = page.inner_text("#last-move")
        assert any(v in last for v in IT_VERBS), last
        assert not RAW_MOVE.search(last) and not ENGLISH_VERB.search(last), last
        body = visible_text(page)
        for word in ("Consiglio", "Abbandona", "La nostra linea", "Smazzata 1 di 1"):
            assert word in body, word
        assert not RAW_KEY.search(body), RAW_KEY.search(body)
        overflow = page.evaluate(
            "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
        )
        assert overflow <= 0, f"the page is {overflow}px wider than the phone"
        shot(page, "table-it")
        switch_language(page)
        assert lang_button(page) == ("Português", "Idioma: Português", "pt-BR")
        assert any(v in page.inner_text("#last-move") for v in PT_VERBS)
        shot(page, "table-pt-phone")
        assert not errors, errors
        context.close()


def test_the_desk_and_the_tournament_page_in_portuguese(browser: Any, tmp_path: Path) -> None:
    from roomserver import RoomServer

    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05) as server:
        with server.http() as http:
            made = http.post("/api/tournaments", json={"name": "Noite do clube"}).json()
            path = f"/api/tournaments/{made['tournament']}"
            http.post(f"{path}/pad", json={"token": made["token"], "size": 4})
            http.post(f"{path}/rounds", json={"token": made["token"], "online": False})
        context = browser.new_context(locale="pt-BR", viewport={"width": 1280, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"{server.url}/desk/{made['tournament']}#key={made['token']}")
        page.wait_for_selector("#standings tr[data-entrant]")
        page.wait_for_selector("#poll-status:not(:empty)")
        body = visible_text(page)
        for word in ("Classificação", "Inscritos", "Rodadas", "Encerrar a rodada", "Mesa 1", "PV"):
            assert word in body, word
        assert not RAW_KEY.search(body), RAW_KEY.search(body)
        assert not re.search(r"\b(AM|PM)\b", body)
        shot(page, "desk-pt")
        page.goto(f"{server.url}/tournament/{made['tournament']}")
        page.wait_for_selector("#standings tr[data-entrant]")
        body = visible_text(page)
        assert "Classificação" in body and "Rodada 1" in body
        assert not RAW_KEY.search(body), RAW_KEY.search(body)
        shot(page, "tournament-pt")
        assert not errors, errors
        context.close()


# Sample values of the engine's params, to say every refusal and hint in the page.
SAMPLE_PARAMS: dict[str, str | int] = {
    "cards": "5H 6H JK",
    "card": "2C",
    "meld": "3H 2H 5H",
    "top": "9S",
    "minimum": 50,
    "laid": 30,
    "most": 2,
    "target": 4,
    "last": 2,
    "kind": "dance",
    "fit": 3,
    "size": 5,
    "grade": "semi-clean",
    "id": 7,
    "action": "pass",
}


def refusals_and_hints_in_every_language(page: Any) -> dict[str, dict[str, str]]:
    """refusalText for every rule (wrappers around meld_too_short) and hintText for every
    reason, in each language, through the page's i18n module."""
    found: dict[str, dict[str, str]] = page.evaluate(
        """async ([rules, whys, sample]) => {
          const m = await import('/static/i18n.js');
          const before = m.getLang();
          const out = {};
          for (const l of m.LANGS) {
            await m.setLang(l);
            const said = {};
            for (const rule of rules) {
              const params = { ...sample, reason: 'meld_too_short' };
              said[`rule.${rule}`] = m.refusalText({ code: 'illegal', rule, params, message: 'x' });
            }
            for (const why of whys) {
              const action = why === 'other' ? 'pass' : 'discard 9S';
              said[`hint.why.${why}`] = m.hintText(action, 'x', why, { ...sample, margin: 12 });
            }
            out[l] = said;
          }
          await m.setLang(before);
          return out;
        }""",
        [list(RULES), list(WHY), SAMPLE_PARAMS],
    )
    return found


def toast_after(page: Any, kind: str, before: str) -> str:
    """The text of the next toast of this kind (one whose text is not `before`), shown in full."""
    page.wait_for_function(
        """([kind, before]) => { const b = document.getElementById('toast');
             return b && !b.hidden && b.dataset.kind === kind && b.textContent !== before
               && b.getAnimations().every((a) => a.playState === 'finished'); }""",
        arg=[kind, before],
        timeout=ms(30),
    )
    return str(page.inner_text("#toast"))


def english_words(message: str) -> set[str]:
    """The words of an English message of the engine, but its cards and short words."""
    return {w for w in re.findall(r"[a-z]{4,}", message.lower())}


def test_an_italian_player_reads_refusals_and_hints_in_italian(
    browser: Any, tmp_path: Path
) -> None:
    from roomserver import RoomServer

    italian = texts()["it"]
    with RoomServer(
        f"sqlite:///{tmp_path / 'room.db'}", bot_delay=0.05, hint_seconds=0.2
    ) as server:
        context = browser.new_context(locale="it-IT", viewport={"width": 1280, "height": 800})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        # The room's error messages as the page receives them.
        refused: list[dict[str, Any]] = []

        def keep(payload: str | bytes) -> None:
            message = json.loads(payload)
            if message.get("type") == "error":
                refused.append(message)

        page.on("websocket", lambda ws: ws.on("framereceived", keep))
        page.goto(f"{server.url}/")
        page.wait_for_selector("#tables-status:not(:empty)")
        create_table(page, server.url, name="Anna", start=True)
        s = wait_my_turn(page)
        assert s["view"]["phase"] == "draw"

        # A discard before drawing, as a click on the pile would send it.
        card = s["view"]["hand"][0]
        page.evaluate("(a) => window.burracoTable.act(a)", f"discard {card}")
        said = toast_after(page, "error", "")
        assert refused[-1]["rule"] == "not_drawn_yet", refused
        assert said == f"Non consentito: {italian['rule.not_drawn_yet']}", said
        english = english_words(refused[-1]["message"])
        assert english and not english & set(re.findall(r"\w+", said.lower())), said
        assert not re.search(r"\d", said), said
        shot(page, "refusal-it-not-drawn")

        # Draw, raise one card and lay it down as a new meld: not a meld, too short.
        page.click("#stock")
        wait_version_above(page, s["version"])
        s = wait_my_turn(page)
        card = s["view"]["hand"][0]
        page.click(f'#hand [data-card="{card}"] >> nth=0')
        page.click("#new-meld")
        said = toast_after(page, "error", said)
        assert (refused[-1]["rule"], refused[-1]["params"]) == (
            "not_a_meld",
            {"reason": "meld_too_short"},
        ), refused
        inner = italian["rule.meld_too_short"]
        assert said == f"Non consentito: {italian['rule.not_a_meld'].format(reason=inner)}"
        english = english_words(refused[-1]["message"])
        assert english and not english & set(re.findall(r"\w+", said.lower())), said
        assert not re.search(r"\d", said), said
        shot(page, "refusal-it-not-a-meld")

        # The expert's hint, in Italian from its code.
        page.click("#hint")
        said = toast_after(page, "hint", said)
        assert said.startswith("Consiglio: "), said
        assert not ENGLISH_VERB.search(said) and not RAW_MOVE.search(said), said
        assert not re.search(r"\b(the|your|stock|pile|points|over|next best)\b", said), said
        assert "{" not in said and not RAW_KEY.search(said), said
        shot(page, "hint-it")

        # Whose turn it is, by name, never by seat number.
        name = page.evaluate(
            """async () => {
              const m = await import('/static/i18n.js');
              const info = window.burracoTable.state.table;
              const error = { code: 'not_your_turn', params: { seat: 1 },
                              message: "it is seat 1's turn, not yours" };
              return m.refusalText(error, { info, seat: 0 });
            }"""
        )
        assert name == "Tocca a Bot intermedio 1, non a te.", name

        # Every refusal and every hint reason, in every language.
        every = refusals_and_hints_in_every_language(page)
        for lang, lines in every.items():
            for key, line in lines.items():
                assert line and "{" not in line and not RAW_KEY.search(line), (lang, key, line)
                # (In English the advice "pass" is the room's word too.)
                assert line == "pass" or not RAW_MOVE.search(line), (lang, key, line)
                if lang != "en" and key != "hint.why.other":
                    assert line != every["en"][key], (lang, key, line)
        assert every["it"]["rule.cannot_add"] == (
            "non si può aggiungere 2♣ a 3♥ 2♥ 5♥: una combinazione ha almeno tre carte"
        )
        assert (
            every["pt"]["rule.no_such_meld"]
            == "a equipe não tem o jogo 5 (seus jogos vão de 1 a 3)"
        )
        assert every["pt"]["hint.why.discard_close"] == (
            "descarte 2♣ e bata (cerca de +12 pontos a mais que a segunda opção)"
        )
        assert not errors, errors
        context.close()
