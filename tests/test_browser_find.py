"""Finding things in the room (issue 31 §3) in a real browser (Playwright, Debian's
Chromium): the tournaments' page and the lobby's link to it, a page that is not there,
the watch links of a tournament's tables, "play bots now" in quick play, and a guest
told the table limit of an address in the page's language."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from conftest import CHROMIUM
from roomserver import RoomServer
from waits import seconds

from burraco.server.capacity import Capacity

pytestmark = pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium is not installed")

I18N = Path(__file__).resolve().parent.parent / "src" / "burraco" / "web" / "i18n"
LOCALES = {"en": "en-GB", "it": "it-IT", "pt": "pt-BR"}


def catalogue(lang: str) -> dict[str, str]:
    texts: dict[str, str] = json.loads((I18N / f"{lang}.json").read_text(encoding="utf-8"))
    return texts


def said(text: str, **params: object) -> str:
    for name, value in params.items():
        text = text.replace("{" + name + "}", str(value))
    return text


def test_a_guest_is_told_the_table_limit_of_an_address_in_each_language(
    browser: Any, tmp_path: Path
) -> None:
    """Anna made the two tables her address may keep; she is told the limit and why, and
    Bruno, at the same address (a club), is told that others' tables fill it."""
    capacity = Capacity(tables_per_creator=2)
    with RoomServer(f"sqlite:///{tmp_path / 'room.db'}", capacity=capacity) as server:
        for _ in range(2):
            made = httpx.post(
                f"{server.url}/api/tables", json={"name": "Anna"}, timeout=seconds(30)
            )
            assert made.status_code == 200, made.text
        for lang, locale in LOCALES.items():
            texts = catalogue(lang)
            context = browser.new_context(locale=locale)
            page = context.new_page()
            page.goto(f"{server.url}/")
            page.wait_for_selector("body[data-lobby-ready=true]", state="attached")
            for name, key, others in (
                ("Anna", "error.guest_tables.other", 0),
                ("Bruno", "error.guest_tables_shared.other", 2),
            ):
                page.fill("#name", name)
                page.click("#create")
                expected = said(texts[key], n=2, others=others)
                page.wait_for_function(
                    "(text) => document.querySelector('#toast')?.textContent === text",
                    arg=expected,
                )
                assert "2" in expected and "{" not in expected
            context.close()
