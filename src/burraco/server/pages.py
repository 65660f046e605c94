"""The web pages as the room serves them: each page with the parts it shares filled in.

The pages (``web/*.html``) share their head's first lines and their header bar's brand
and language button. Each shared part is written once, in ``web/parts/``, and a page names
it where it goes with ``<!--#include NAME.html-->`` (a comment, so the page stays plain
HTML). A part may name another. The part's lines take the indentation of the line the
mark stands on. The room fills the marks when it serves a page, at its own address
(``/``, ``/table/…``) or under ``/static/``, and keeps the result until a file changes;
the answer carries an ETag, so a browser that holds the page is told 304.
"""

from __future__ import annotations

import hashlib
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

__all__ = ["WEB", "PageFiles", "assemble", "page", "page_response"]

WEB: Final = Path(__file__).resolve().parent.parent / "web"
#: A mark that names a shared part: ``<!--#include head.html-->``.
INCLUDE: Final = re.compile(r"<!--#include ([a-z][a-z0-9-]*\.html)-->")
#: Parts inside parts inside parts: deeper is a loop.
MAX_DEPTH: Final = 4


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
