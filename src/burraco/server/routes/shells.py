"""The web pages as the room serves them: each page with the parts it shares filled in.

The pages (``web/*.html``) share their head's first lines and their header bar's brand
and language button. Each shared part is written once, in ``web/parts/``, and a page names
it where it goes with ``<!--#include NAME.html-->`` (a comment, so the page stays plain
HTML). A part may name another. The part's lines take the indentation of the line the
mark stands on. The room fills the marks when it serves a page, at its own address
(``/``, ``/table/…``) or under ``/static/``, and keeps the result until a file changes;
the answer carries an ETag, so a browser that holds the page is told 304.

A page the room does not have (an unknown address, a table or tournament that is gone) is
answered 404 with ``notfound.html`` in the reader's language, its texts filled in here
(``?lang=``, else the browser's Accept-Language), so it reads without its script too; the
page's script then follows a choice the reader saved with the language button. Under
``/api`` the errors stay JSON.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from starlette.datastructures import Headers
from starlette.exceptions import HTTPException
from starlette.responses import Response
from starlette.staticfiles import NotModifiedResponse, PathLike, StaticFiles
from starlette.types import Scope

__all__ = [
    "WEB",
    "PageFiles",
    "assemble",
    "is_page_request",
    "language",
    "not_found_response",
    "page",
    "page_response",
    "translated",
]

WEB: Final = Path(__file__).resolve().parents[2] / "web"
#: A mark that names a shared part: ``<!--#include head.html-->``.
INCLUDE: Final = re.compile(r"<!--#include ([a-z][a-z0-9-]*\.html)-->")
#: Parts inside parts inside parts: deeper is a loop.
MAX_DEPTH: Final = 4
#: The page's languages (web/i18n/*.json) and their ``<html lang>``, as web/i18n.js has them.
HTML_LANG: Final = {"en": "en", "it": "it", "pt": "pt-BR"}
#: An element whose whole text is a catalogue's key: ``<h1 data-i18n="key">text</h1>``.
TRANSLATED: Final = re.compile(
    r'(<([a-z0-9]+)\b[^>]*\sdata-i18n="([a-z0-9_.]+)"[^>]*>)([^<]*)(</\2>)'
)


@dataclass(frozen=True)
class Page:
    """A page filled in: its bytes, their ETag, and the files it was made of with their
    modification times and sizes (to know when it must be made again; the size tells an
    edit within the file system's tick of time)."""

    body: bytes
    etag: str
    made_of: tuple[tuple[Path, tuple[int, int]], ...]

    def fresh(self) -> bool:
        """Whether no file the page was made of has changed since."""
        try:
            return all(_stamp(path) == stamp for path, stamp in self.made_of)
        except OSError:
            return False


def assemble(text: str, parts: Path, used: list[Path] | None = None, depth: int = 0) -> str:
    """``text`` with every ``<!--#include NAME.html-->`` replaced by the part
    ``parts/NAME.html``; ``used`` collects the parts read. A missing part, or parts that
    name each other in a loop, raise ValueError naming it."""

    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if depth >= MAX_DEPTH:
            raise ValueError(f"the part {name} is included {MAX_DEPTH} deep: a loop?")
        path = parts / name
        if not path.is_file():
            raise ValueError(f"no part {name} in {parts}")
        if used is not None:
            used.append(path)
        inner = assemble(path.read_text(encoding="utf-8"), parts, used, depth + 1)
        # The part's later lines are indented as the line that names it.
        before = text[text.rfind("\n", 0, match.start()) + 1 : match.start()]
        indent = before[: len(before) - len(before.lstrip(" \t"))]
        return inner.rstrip("\n").replace("\n", "\n" + indent)

    return INCLUDE.sub(fill, text)


_made: dict[Path, Page] = {}


def _stamp(path: Path) -> tuple[int, int]:
    found = path.stat()
    return found.st_mtime_ns, found.st_size


def page(path: Path) -> Page:
    """The page at ``path`` filled in, made again only when one of its files changed."""
    found = _made.get(path)
    if found is not None and found.fresh():
        return found
    parts = path.parent / "parts"
    used = [path]
    body = assemble(path.read_text(encoding="utf-8"), parts, used).encode("utf-8")
    made_of = tuple((p, _stamp(p)) for p in dict.fromkeys(used))
    etag = '"' + hashlib.sha256(body).hexdigest()[:32] + '"'
    found = _made[path] = Page(body, etag, made_of)
    return found


def _answer(filled: Page) -> Response:
    return Response(
        filled.body, media_type="text/html; charset=utf-8", headers={"etag": filled.etag}
    )


def page_response(name: str, web: Path = WEB) -> Response:
    """The answer for the page ``web/NAME`` (``index.html``…) at its own address."""
    path = web / name
    if not path.is_file():
        raise HTTPException(404, f"no page {name}")
    return _answer(page(path))


class PageFiles(StaticFiles):
    """The web directory's files under ``/static``, with its pages filled in as at their
    own addresses (the demo tables are ``/static/table.html?demo=…``)."""

    def file_response(
        self,
        full_path: PathLike,
        stat_result: os.stat_result,
        scope: Scope,
        status_code: int = 200,
    ) -> Response:
        path = Path(full_path)
        home = Path(os.path.realpath(self.directory or ""))
        if path.suffix != ".html" or path.parent != home or status_code != 200:
            return super().file_response(full_path, stat_result, scope, status_code)
        answer = _answer(page(path))
        if self.is_not_modified(answer.headers, Headers(scope=scope)):
            return NotModifiedResponse(answer.headers)
        return answer


def is_page_request(method: str, path: str) -> bool:
    """Whether a request asks for a page (a person's browser at an address), not the API
    (``/api``, the sockets) nor a script or a style under ``/static``: its 404 is a page."""
    if method not in ("GET", "HEAD"):
        return False
    if path == "/api" or path.startswith(("/api/", "/ws/")):
        return False
    return not path.startswith("/static/") or path.endswith(".html")


def language(asked: str | None, accept_language: str | None) -> str:
    """The page's language: ``asked`` (``?lang=``) if the room speaks it, else the first of
    the browser's languages it speaks (pt-BR, pt → pt; it-IT → it; en-GB → en), else
    English, as web/i18n.js chooses it.

    >>> language(None, "de-DE,it;q=0.8,en;q=0.5"), language("pt", "it"), language("xx", None)
    ('it', 'pt', 'en')
    """
    if asked in HTML_LANG:
        return str(asked)
    ranked: list[tuple[float, int, str]] = []
    for index, item in enumerate((accept_language or "").split(",")):
        tag, _, rest = item.strip().partition(";")
        weight = 1.0
        if rest.strip().startswith("q="):
            try:
                weight = float(rest.strip()[2:])
            except ValueError:
                weight = 0.0
        ranked.append((-weight, index, tag.strip().lower().split("-")[0]))
    for weight, _, base in sorted(ranked):
        if base in HTML_LANG and weight < 0:
            return base
    return "en"


_catalogues: dict[tuple[Path, str], tuple[tuple[int, int], dict[str, str]]] = {}


def catalogue(lang: str, web: Path = WEB) -> dict[str, str]:
    """The texts of ``lang`` (web/i18n/LANG.json), read again when the file changes."""
    path = web / "i18n" / f"{lang}.json"
    stamp = _stamp(path)
    found = _catalogues.get((web, lang))
    if found is None or found[0] != stamp:
        texts = json.loads(path.read_text(encoding="utf-8"))
        found = _catalogues[(web, lang)] = (stamp, {str(k): str(v) for k, v in texts.items()})
    return found[1]


def translated(text: str, lang: str, web: Path = WEB) -> str:
    """A page's text with each ``data-i18n`` element's text in ``lang`` (English where the
    language lacks a key) and ``<html lang>`` set: what its script would show."""
    texts = catalogue("en", web) | catalogue(lang, web)

    def fill(match: re.Match[str]) -> str:
        said = texts.get(match.group(3))
        if said is None:
            return match.group(0)
        return match.group(1) + html.escape(said, quote=False) + match.group(5)

    filled = TRANSLATED.sub(fill, text)
    return filled.replace('<html lang="en">', f'<html lang="{HTML_LANG[lang]}">', 1)


def not_found_response(asked: str | None, accept_language: str | None, web: Path = WEB) -> Response:
    """The 404 page in the reader's language (:func:`language`), with a way to the lobby."""
    lang = language(asked, accept_language)
    body = translated(page(web / "notfound.html").body.decode("utf-8"), lang, web)
    # The answer depends on the language asked for: a cache keeps each apart.
    headers = {"vary": "Accept-Language", "content-language": HTML_LANG[lang]}
    return Response(body, 404, headers=headers, media_type="text/html; charset=utf-8")
