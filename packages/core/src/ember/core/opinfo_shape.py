"""The op table's rows for the shape family (kind "shape"): views, joins and splits."""

from __future__ import annotations

INFOS: dict = {}
