"""`CheckpointException`: the failures of a collective checkpoint step, by rank (torch.distributed.checkpoint.api)."""

from __future__ import annotations

import traceback

__all__ = ["CheckpointException"]


class CheckpointException(BaseException):
    """One or more ranks failed a save or load step; `failures` maps each rank to (exception, its stack).

    A BaseException, as PyTorch's: `except Exception` does not catch it. Its text lists each rank's
    traceback and ends with the original error's line ("RuntimeError: Missing key in ...")."""

    def __init__(self, msg: str, failures: dict[int, tuple[BaseException, list | None]]) -> None:
        super().__init__(msg, failures)
        self._failures = failures

    @property
    def failures(self) -> dict[int, tuple[BaseException, list | None]]:
        return self._failures

    def __str__(self) -> str:
        text = f"CheckpointException ranks:{self._failures.keys()}\n"
        for rank, (exc, frames) in self._failures.items():
            text += f"Traceback (most recent call last): (RANK {rank})\n"
            if frames is not None:
                text += "".join(traceback.format_list(frames))
            text += "".join(traceback.format_exception_only(type(exc), exc))
        return text


def _failure(exc: BaseException) -> tuple[BaseException, list]:
    """`exc` with its stack, in the form CheckpointException keeps (and a collective can pickle)."""
    return exc, traceback.extract_tb(exc.__traceback__)
