"""Training on uneven inputs: PyTorch's `torch.distributed.algorithms.join` (`Join`, `Joinable`,
`JoinHook`).

NOTE [ Join: shadowing the collectives of the ranks still training ]
Inside `with Join([ddp, ...]):` every rank runs its own number of iterations. A rank that has
run out of inputs leaves the loop and, in `Join.__exit__`, keeps answering the collectives the
others still issue, so none of them waits forever. Each iteration of a rank still training
starts with `Join.notify_join_context` (called by the first joinable, DDP at the top of its
forward), which all-reduces a 1; a joined rank all-reduces a 0 with it and so learns how many
ranks are still training. While that count is positive, the joined rank runs each joinable's
`JoinHook.main_hook`, which issues the same collectives, in the same order, as one iteration of
the joinable (DDP: the buffer broadcast, the backward-sync flag, one all-reduce of zeros per
gradient bucket). When the count is 0 every rank has joined; each runs `post_hook(is_last_joiner)`
(DDP copies the model of a last joiner to every rank). With `throw_on_early_termination`, the
first rank to join makes everyone raise instead: after each notification the training ranks
all-reduce a 0 that a joined rank answers with a 1.
"""

from __future__ import annotations

import warnings
from abc import ABC, abstractmethod
from types import TracebackType
from typing import Any, NamedTuple

import numpy as np

from ember.core.tensor import Tensor
from ember.distributed import c10d

__all__ = ["JoinHook", "Joinable", "Join"]


class JoinHook:
    """What a joinable does once its rank has joined: `main_hook` shadows one training iteration's
    collectives while some rank still trains; `post_hook` runs once every rank has joined."""

    def main_hook(self) -> None:
        """Issue the collectives of one iteration of the ranks still training."""

    def post_hook(self, is_last_joiner: bool) -> None:
        """Run after every rank has joined; `is_last_joiner` is True on the ranks that joined last."""


class _JoinConfig(NamedTuple):
    enable: bool
    throw_on_early_termination: bool
    is_first_joinable: bool

    @staticmethod
    def construct_disabled_join_config() -> _JoinConfig:
        return _JoinConfig(enable=False, throw_on_early_termination=False, is_first_joinable=False)


class Joinable(ABC):
    """A class that can take part in `Join`: it calls `Join.notify_join_context(self)` before each
    iteration's collectives and provides `join_hook`, `join_device` and `join_process_group`."""

    @abstractmethod
    def __init__(self) -> None:
        super().__init__()
        self._join_config = _JoinConfig.construct_disabled_join_config()

    @abstractmethod
    def join_hook(self, **kwargs) -> JoinHook:
        """The `JoinHook` of this joinable (`kwargs` are those given to `Join`)."""

    @property
    @abstractmethod
    def join_device(self):
        """The device of the join's own collectives."""

    @property
    @abstractmethod
    def join_process_group(self) -> Any:
        """The process group of the join's own collectives."""


def _all_reduce_scalar(value: float, pg, op=c10d.ReduceOp.SUM) -> float:
    t = Tensor._wrap(np.array([value], np.float64))
    c10d.all_reduce(t, op=op, group=pg)
    return float(t._np()[0])


class Join:
    """Context manager for training loops whose ranks have different numbers of inputs: a rank that
    finishes early shadows the others' collectives until every rank has finished.

    Args:
        joinables: the participating `Joinable`s (e.g. a `DistributedDataParallel`); their hooks run
            in this order, and the first one issues the join's own collectives.
        enable: False turns the manager off (inputs known to be even).
        throw_on_early_termination: raise `RuntimeError` on every rank as soon as one rank runs
            out of inputs, instead of shadowing.
        **kwargs: passed to every joinable's `join_hook` (DDP: `divide_by_initial_world_size`).

    Raises:
        ValueError: no joinables, or joinables with different process groups.
        RuntimeError: with `throw_on_early_termination`, once a rank has exhausted its inputs.

    Example: `with Join([ddp]): for x in my_batches: ddp(x).sum().backward(); opt.step()`.
    """

    def __init__(self, joinables: list[Joinable], enable: bool = True, throw_on_early_termination: bool = False,
                 **kwargs) -> None:
        if len(joinables) == 0:
            raise ValueError("The join context manager requires at least one joinable")
        self._joinables = joinables
        self._join_hooks = [j.join_hook(**kwargs) for j in joinables]
        self._enable = enable
        self._throw_on_early_termination = throw_on_early_termination
        for k, j in enumerate(joinables):
            j._join_config = _JoinConfig(enable=enable, throw_on_early_termination=throw_on_early_termination,
                                         is_first_joinable=k == 0)
        pg, device = None, None
        for j in joinables:
            if pg is None:
                pg = j.join_process_group
            elif pg != j.join_process_group:
                raise ValueError("Using join context manager with multiple process groups")
            if device is None:
                device = j.join_device
        self._process_group = pg
        self._rank = c10d.get_rank(pg)
        self._device = device

    def __enter__(self) -> None:
        return None

    def __exit__(self, type: type[BaseException] | None, value: BaseException | None,  # noqa: A002 - PyTorch's
                 traceback: TracebackType | None) -> None:
        """Shadow the others' iterations until every rank has joined, then run the post-hooks
        (see NOTE [ Join: shadowing the collectives of the ranks still training ])."""
        if not self._enable or type:
            return
        is_last_joiner = True
        shadowed = 0
        while self._get_num_nonjoined_procs() > 0:
            if shadowed == 1001:
                warnings.warn(f"Detected uneven input skew of greater than 1000. This means that rank {self._rank} "
                              "has at least 1000 fewer inputs than other currently-active ranks. This level of skew "
                              "could lead to performance degradation during training.", stacklevel=2)
            if self._throw_on_early_termination:
                self._notify_procs_to_terminate()
            for hook in self._join_hooks:
                hook.main_hook()
            is_last_joiner = False
            shadowed += 1
        for hook in self._join_hooks:
            hook.post_hook(is_last_joiner)

    def _get_num_nonjoined_procs(self) -> int:
        """Answer a training rank's notification with a 0: the sum counts the ranks still training."""
        return int(_all_reduce_scalar(0.0, self._process_group))

    def _notify_procs_to_terminate(self) -> None:
        _all_reduce_scalar(1.0, self._process_group)
        raise RuntimeError(f"Rank {self._rank} exhausted all inputs.")

    @staticmethod
    def notify_join_context(joinable: Joinable) -> c10d.Work | None:
        """Tell the join context that this rank has not joined (a collective, issued by the first
        joinable only, before its iteration's own collectives).

        Returns:
            The `Work` of the all-reduce of a 1 (its result, a one-element tensor, counts the ranks
            still training), or None when `joinable` is not the first or the join is disabled.

        Raises:
            RuntimeError: with `throw_on_early_termination`, some rank has exhausted its inputs.
        """
        if not hasattr(joinable, "_join_config"):
            raise AssertionError(f"Check that the {type(joinable)} constructor calls the ``Joinable`` constructor")
        cfg = joinable._join_config
        if not cfg.is_first_joinable or not cfg.enable:
            return None
        pg = joinable.join_process_group
        work = c10d.all_reduce(Tensor._wrap(np.ones(1, np.float64)), group=pg, async_op=True)
        if cfg.throw_on_early_termination:
            work.wait()   # MPI must not write into the buffer of a request abandoned by the raise below
            if _all_reduce_scalar(0.0, pg) > 0:
                raise RuntimeError("Detected at least one rank that exhausted inputs. Throwing across all ranks.")
        return work
