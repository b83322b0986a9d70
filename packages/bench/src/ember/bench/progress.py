"""A dependency-free terminal progress bar (plain lines when output is not a terminal)."""

from __future__ import annotations

import sys
import time


class Progress:
    """`with Progress(total, "label") as bar: bar.update(1, loss=0.3)`."""

    def __init__(self, total: int, label: str, width: int = 28, stream=None) -> None:
        self.total, self.label, self.width = max(total, 1), label, width
        self.stream = stream or sys.stderr
        self.done = 0
        self.info = ""
        self.t0 = time.perf_counter()
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self._last_line = -1.0

    def __enter__(self) -> Progress:
        self._draw()
        return self

    def __exit__(self, *exc) -> None:
        self._draw(final=True)

    def update(self, n: int = 1, **info) -> None:
        self.done = min(self.total, self.done + n)
        if info:
            self.info = "  ".join(f"{k}={v:.4f}" if isinstance(v, float) else f"{k}={v}" for k, v in info.items())
        self._draw()

    def _draw(self, final: bool = False) -> None:
        frac = self.done / self.total
        elapsed = time.perf_counter() - self.t0
        if not self.tty:
            # one line per 10% (and the last) keeps logs readable
            if final or frac - self._last_line >= 0.1:
                self._last_line = frac
                print(f"{self.label}: {self.done}/{self.total} {self.info} [{elapsed:.1f}s]", file=self.stream,
                      flush=True)
            return
        filled = int(self.width * frac)
        bar = "#" * filled + "-" * (self.width - filled)
        end = "\n" if final else ""
        print(f"\r{self.label} [{bar}] {self.done}/{self.total} {self.info} [{elapsed:.1f}s]", end=end,
              file=self.stream, flush=True)
