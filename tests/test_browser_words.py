"""Issue 31 §2, the words: what the pages say, in Italian and in Portuguese, on a laptop
(1366x768) and on a phone (390x844).

The language menu offers each language by its own name, the one in use marked; the
keyboard's keys follow the words of the page's language and the keys' window shows them;
a player's page shows no "null"; the closed pile's prompt names the card with its suit;
the chat's placeholder is shown whole. Screenshots go to ``artifacts/screenshots/``
(words-*).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from roomserver import RoomServer
from test_browser import CHROMIUM, choose_language, create_table, shot

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

VIEWPORTS = {"laptop": {"width": 1366, "height": 768}, "phone": {"width": 390, "height": 844}}
LOCALES = {"it": "it-IT", "pt": "pt-BR"}
NATIVE = {"en": "English", "it": "Italiano", "pt": "Português"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RoomServer]:
    database = tmp_path_factory.mktemp("words") / "room.db"
    with RoomServer(f"sqlite:///{database}", bot_delay=0.05) as room:
        yield room


@pytest.fixture(
    params=[(v, lang) for v in VIEWPORTS for lang in LOCALES], ids=lambda p: "-".join(p)
)
def page(request: pytest.FixtureRequest, browser: Any) -> Iterator[Any]:
    """A page of its own context at each viewport, the browser speaking Italian or
    Portuguese; failing on any script error it had."""
    viewport, lang = request.param
    context = browser.new_context(viewport=VIEWPORTS[viewport], locale=LOCALES[lang])
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.lang = lang
    page.shot_name = f"{viewport}-{lang}"
    yield page
    context.close()
    assert not errors, errors


def in_view(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    size = page.viewport_size
    return bool(
        box
        and box["x"] >= 0
        and box["y"] >= 0
        and box["x"] + box["width"] <= size["width"] + 0.5
        and box["y"] + box["height"] <= size["height"] + 0.5
    )


# ---------------------------------------------------------------- the language menu


def test_the_language_menu_offers_each_language_by_its_own_name(
    page: Any, server: RoomServer
) -> None:
    """Not a cycle: one click on the menu, one on the language. Each choice is a button
    whose accessible name is its visible name (WCAG 2.5.3); the one in use is marked."""
    page.goto(f"{server.url}/")
    page.wait_for_selector("body[data-lobby-ready=true]", state="attached")
    lang = page.lang
    summary = page.locator("#lang > summary")
    assert summary.inner_text() == NATIVE[lang]
    assert NATIVE[lang] in (summary.get_attribute("aria-label") or "")
    summary.click()
    for code, name in NATIVE.items():
        choice = page.get_by_role("button", name=name, exact=True)
        assert choice.count() == 1, name
        assert choice.is_visible() and in_view(page, f"#lang button[data-lang='{code}']"), name
        assert choice.inner_text() == name
        assert (choice.get_attribute("aria-current") == "true") == (code == lang), name
    shot(page, f"words-lang-menu-{page.shot_name}")
    # Straight to English from either language, with no stop at the other one.
    page.get_by_role("button", name="English", exact=True).click()
    page.wait_for_function("() => document.documentElement.lang === 'en'")
    assert page.locator("#lang").get_attribute("open") is None
    assert summary.inner_text() == "English"
    assert page.evaluate("() => localStorage.getItem('burraco.lang')") == "en"
    # By the keyboard: the menu's button opens it, Tab reaches a choice, Enter chooses it;
    # Escape closes the menu without a choice.
    summary.focus()
    page.keyboard.press("Enter")
    page.wait_for_selector("#lang[open]")
    page.keyboard.press("Escape")
    page.wait_for_selector("#lang:not([open])", state="attached")
    page.keyboard.press("Enter")
    page.wait_for_selector("#lang[open]")
    target = "pt" if lang == "it" else "it"
    for _ in range(list(NATIVE).index(target) + 1):
        page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.dataset.lang") == target
    page.keyboard.press("Enter")
    page.wait_for_function("(l) => document.documentElement.lang.startsWith(l)", arg=target)
    assert choose_language(page, lang).startswith(lang)


# ---------------------------------------------------------------- a player's page

# What a page shows of a missing value: a script's null or undefined said as a word.
MISSING = re.compile(r"\b(null|undefined|NaN)\b")


def test_a_players_page_shows_no_null(page: Any, server: RoomServer) -> None:
    """Under a person's name stood "null" (the challenge form a bot account has, missing
    on a person's page, written by replaceChildren as text)."""
    name = f"Anna{page.shot_name.replace('-', '')}"
    server.room.store.create_user(name, "a long enough password", language=page.lang)
    page.goto(f"{server.url}/player/{name}")
    page.wait_for_selector("body[data-ready=true]", state="attached")
    text = page.inner_text("#player")
    assert text.startswith(name), text
    assert not MISSING.search(text), text
    shot(page, f"words-player-{page.shot_name}")


# ---------------------------------------------------------------- the closed pile's prompt

# A card in the room's notation ("AD", "10C", "JK"), which the page never shows.
CARD_CODE = re.compile(r"\b(10|[2-9AJQK])[SHDC]\b|\bJK\b")


def test_the_closed_piles_prompt_names_its_top_card_with_its_suit(
    page: Any, server: RoomServer
) -> None:
    """It said "primeiro baixe o AD, a carta do topo do lixo": the card's code."""
    page.goto(f"{server.url}/static/table.html?demo=closed")
    page.wait_for_selector("#hand [data-card]")
    page.wait_for_function("() => document.getElementById('turn')?.textContent.includes('A♦')")
    prompt = page.inner_text("#turn")
    assert not CARD_CODE.search(prompt), prompt
    assert ("topo do lixo" if page.lang == "pt" else "cima agli scarti") in prompt, prompt
    shot(page, f"words-closed-pile-{page.shot_name}")


# ---------------------------------------------------------------- the keyboard's letters

# Each language's letters, its own words' first ones: draw, take, meld, discard, sort, hint.
LETTERS = {
    "it": {"draw": "P", "discard": "S", "sort": "O"},  # pesca, scarta, ordina
    "pt": {"draw": "C", "discard": "D", "sort": "O"},  # comprar, descartar, ordenar
}


def toast_says(page: Any, words: str) -> None:
    page.wait_for_function(
        "(w) => document.getElementById('toast')?.textContent.includes(w)", arg=words
    )


def test_the_keys_window_shows_the_languages_letters_and_they_play(
    page: Any, server: RoomServer
) -> None:
    """The keys were English mnemonics in every language (d, t, x…): each language has its
    own, shown in the ? window, and the table plays them (a demo table: a move's key says
    the action it would send)."""
    letters = LETTERS[page.lang]
    page.goto(f"{server.url}/static/table.html?demo=draw")
    page.wait_for_selector("#hand [data-card]")
    page.locator("body").click(position={"x": 5, "y": 300})
    page.keyboard.press("?")
    page.wait_for_selector("#keys-help[open]")
    shown = page.eval_on_selector_all(
        "#keys-help dt kbd[data-i18n^='keys.letter.']",
        "ks => Object.fromEntries(ks.map((k) => [k.dataset.i18n.slice(12), k.textContent]))",
    )
    assert len(set(shown.values())) == 6, shown
    for action, letter in letters.items():
        assert shown[action] == letter, (action, shown)
    shot(page, f"words-keys-{page.shot_name}")
    page.keyboard.press("Escape")
    page.wait_for_selector("#keys-help:not([open])", state="attached")

    # The draw's letter draws (the demo says what it would send).
    page.keyboard.press(letters["draw"].lower())
    toast_says(page, "“draw”")
    # The discard's letter discards the raised card: in Italian "s", which sorts in English.
    sort = page.evaluate("() => localStorage.getItem('burraco.sort') || 'suit'")
    card = page.locator("#hand [data-card]").first.get_attribute("data-card")
    page.locator("#hand [data-card]").first.click()
    page.wait_for_function("(c) => window.burracoTable?.raised?.includes(c)", arg=card)
    page.keyboard.press(letters["discard"].lower())
    toast_says(page, f"“discard {card}”")
    assert page.evaluate("() => localStorage.getItem('burraco.sort') || 'suit'") == sort
    # The sort's letter sorts the other way.
    page.keyboard.press(letters["sort"].lower())
    page.wait_for_function(
        "(s) => (localStorage.getItem('burraco.sort') || 'suit') !== s", arg=sort
    )


# ---------------------------------------------------------------- the chat's placeholder

# The placeholder's width in the input's font, and the room the input gives it.
PLACEHOLDER_FIT = """() => {
  const input = document.getElementById('chat-text');
  const css = getComputedStyle(input);
  const pen = document.createElement('canvas').getContext('2d');
  pen.font = `${css.fontStyle} ${css.fontWeight} ${css.fontSize} ${css.fontFamily}`;
  const room = input.clientWidth - parseFloat(css.paddingLeft) - parseFloat(css.paddingRight);
  return { text: input.placeholder, width: pen.measureText(input.placeholder).width, room };
}"""


def test_the_chats_placeholder_is_shown_whole(page: Any, server: RoomServer) -> None:
    """It was cut on a laptop's side panel: "Escreva para a"."""
    create_table(page, server.url, start=True)
    if page.locator("#chat-button").is_visible():
        page.click("#chat-button")  # a phone's chat: the drawer
    page.wait_for_selector("#chat-text")
    fit = page.evaluate(PLACEHOLDER_FIT)
    assert fit["text"] and fit["width"] <= fit["room"], fit
    shot(page, f"words-chat-{page.shot_name}")
