"""Make `loader_datasets` importable as a top-level module, here and in spawned workers.

With `consider_namespace_packages` the tests run as `packages.data.tests.*` and their directory
is not on `sys.path`; the datasets that workers unpickle need one stable, importable name.
"""

from __future__ import annotations

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
