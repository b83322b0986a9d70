"""Progress of long work (training, Table 1): a tqdm bar with rate and time left on a terminal,
and nothing at all when output is not one, so logs and CI stay clean."""

from __future__ import annotations

import sys

from tqdm import tqdm


class Progress:
    """`with Progress(total, "label") as bar: bar.update(1, loss=0.3)`; the keywords show after the bar."""

    def __init__(self, total: int, label: str, stream=None) -> None:
        self.stream = stream or sys.stderr
        tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.bar = tqdm(total=total, desc=label, file=self.stream, disable=not tty, dynamic_ncols=True,
                        leave=True, smoothing=0.1)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        self.bar.close()

    def update(self, n: int = 1, **info) -> None:
        if info:
            self.bar.set_postfix({k: f"{v:.4f}" if isinstance(v, float) else v for k, v in info.items()},
                                 refresh=False)
        self.bar.update(n)
