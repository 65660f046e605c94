"""Builds the rules engine's hot modules with mypyc where it can; the pure-Python engine otherwise.

The compiled modules come from the same Python source (one source of the rules): mypyc
compiles ``src/burraco/{cards,actions,errors,refusals,melds,scoring,deal}.py`` to C
extension modules installed beside the ``.py`` files, which Python then imports first.
The build installs the pure engine instead, saying so in one line, when
``BURRACO_PURE=1`` is set, when mypyc does not import, or when no C compiler works.
Beside the compiled modules it writes ``_engine_build.json`` (each source's SHA-256), by
which ``burraco._engine`` refuses a build older than its source (docs/architecture.md).
Everything else about the package is in pyproject.toml.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from setuptools import setup
from setuptools.command.build_ext import build_ext

HERE = Path(__file__).resolve().parent
PACKAGE = HERE / "src" / "burraco"
#: As burraco._engine.COMPILED_MODULES (setup.py runs before the package imports).
#: The rules engine's hot modules: what random play runs through. Not the server, bots or
#: research code, nor ``variants`` and ``view`` (built once a deal or a view, and read by
#: people's code with values of any type that compiled classes would refuse).
ENGINE = ("cards", "actions", "errors", "refusals", "melds", "scoring", "deal")
BUILD_RECORD = "_engine_build.json"


def say(line: str) -> None:
    print(f"burraco: {line}", file=sys.stderr, flush=True)


def c_compiler_works() -> bool:
    """Whether a C compiler builds an object file against Python's headers here."""
    from setuptools._distutils.ccompiler import new_compiler
    from setuptools._distutils.errors import CCompilerError, DistutilsError
    from setuptools._distutils.sysconfig import customize_compiler, get_python_inc

    compiler: Any = new_compiler()
    customize_compiler(compiler)
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "probe.c"
        source.write_text("#include <Python.h>\nint burraco_probe(void) { return 0; }\n")
        try:
            compiler.compile([str(source)], output_dir=tmp, include_dirs=[get_python_inc()])
        except (CCompilerError, DistutilsError, OSError):
            return False
    return True


#: The setup.py commands that build extension modules; the others (the metadata a PEP 517
#: frontend asks for first) need no mypyc run, and say nothing.
BUILDS = frozenset({"build", "build_ext", "bdist_wheel", "editable_wheel", "install", "develop"})


def compiled_modules() -> list[Any]:
    if not BUILDS.intersection(sys.argv[1:]):
        return []
    if os.environ.get("BURRACO_PURE", "") not in ("", "0"):
        say("BURRACO_PURE is set: installing the pure-Python engine")
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        say("mypyc is not available: installing the pure-Python engine")
        return []
    if not c_compiler_works():
        say("no working C compiler: installing the pure-Python engine")
        return []
    say("compiling the rules engine with mypyc (BURRACO_PURE=1 skips it)")
    paths = [f"src/burraco/{name}.py" for name in ENGINE]
    modules: list[Any] = mypycify(paths, opt_level="3", debug_level="0", group_name="burraco")
    return modules


class RecordedBuild(build_ext):
    """build_ext that records the sources it compiled, so a stale build is never imported."""

    def run(self) -> None:
        super().run()
        if not self.extensions:
            return
        record = {name: hashlib.sha256((PACKAGE / f"{name}.py").read_bytes()).hexdigest()
                  for name in ENGINE}  # fmt: skip
        target = PACKAGE if self.inplace else Path(self.build_lib) / "burraco"
        target.mkdir(parents=True, exist_ok=True)
        (target / BUILD_RECORD).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")

    def get_outputs(self) -> list[str]:
        # The record is installed with the modules (a wheel lists build_ext's outputs).
        outputs: list[str] = super().get_outputs()
        if self.extensions and not self.inplace:
            outputs.append(str(Path(self.build_lib) / "burraco" / BUILD_RECORD))
        return outputs


setup(ext_modules=compiled_modules(), cmdclass={"build_ext": RecordedBuild})
