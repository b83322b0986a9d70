"""Make this directory's helper module (`ag_util`) importable under any pytest import mode."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
