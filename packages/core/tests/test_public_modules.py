"""Every public module of ember.core says what it exports (`__all__`), so star imports carry no internals."""

from __future__ import annotations

import ast
from pathlib import Path

import ember.core as core


def _lacking_all(src: Path) -> list[str]:
    return [str(p.relative_to(src)) for p in sorted(src.rglob("*.py"))
            if not p.name.startswith("_") or p.name == "__init__.py"
            if not any(getattr(t, "id", "") == "__all__" for n in ast.parse(p.read_text()).body
                       for t in getattr(n, "targets", [getattr(n, "target", None)]))]


def test_every_public_module_has_all():
    assert _lacking_all(Path(core.__file__).parent) == []


def test_core_all_names_exist_and_hold_no_internals():
    assert [n for n in core.__all__ if not hasattr(core, n)] == []
    assert [n for n in ("declare", "attach", "method", "wrap", "write_out", "UNARY", "np", "annotations")
            if n in core.__all__ or hasattr(core, n)] == []
