"""`ZeroRedundancyOptimizer` (ZeRO stage 1): each rank keeps the optimizer state of its own share of the
parameters only, steps that share, then broadcasts it to the other ranks.

The parameters are shared out as PyTorch's are, so a checkpoint's indices mean the same: group by group, largest
first, each to the rank with the fewest elements so far (ties to the lowest rank). Every rank wraps one local
optimizer of the given class over its share. `param_groups` is the global view (a scheduler changing a learning
rate there reaches the local optimizer at the next step); `state_dict()` needs `consolidate_state_dict(to)` on
every rank first and then returns, on `to`, the state of every parameter under its global index.
"""

from __future__ import annotations

from typing import Any

from ember.core.tensor import Tensor
from ember.optim import Optimizer

from ember.distributed import c10d, exchange, objects
from ember.distributed.join import Join, Joinable, JoinHook

__all__ = ["ZeroRedundancyOptimizer"]


class _ZeROJoinHook(JoinHook):
    """A joined rank keeps stepping its share (with no gradients, so unchanged) and broadcasting it, as the ranks
    still training expect."""

    def __init__(self, zero: ZeroRedundancyOptimizer) -> None:
        self.zero = zero

    def main_hook(self) -> None:
        self.zero.step()


def _check_params(params) -> list:
    if isinstance(params, Tensor):
        raise TypeError(f"`params` argument should be an iterable of Tensors, but got {params.type()}")
    params = list(params)
    if not params:
        raise ValueError("ZeroRedundancyOptimizer got an empty parameter list")
    if not (all(isinstance(p, Tensor) for p in params) or all(isinstance(p, dict) for p in params)):
        raise TypeError("`params` argument should be an iterable of Tensors or dicts")
    return params


class ZeroRedundancyOptimizer(Optimizer, Joinable):
    """Wrap `optimizer_class(..., **defaults)` so each rank of `process_group` holds the state of its share of
    `params` only (PyTorch's `torch.distributed.optim.ZeroRedundancyOptimizer`)."""

    def __init__(self, params, optimizer_class: type[Optimizer], process_group: Any | None = None,
                 parameters_as_bucket_view: bool = False, overlap_with_ddp: bool = False, **defaults: Any) -> None:
        if overlap_with_ddp:
            raise NotImplementedError("ZeroRedundancyOptimizer(overlap_with_ddp=True) is not provided by ember: it "
                                      "steps from a DDP communication hook (hook_with_zero_step), which ember's DDP "
                                      "does not have; step after backward instead")
        params = _check_params(params)
        self.initialized = False
        Optimizer.__init__(self, params, defaults)
        Joinable.__init__(self)
        self._all_params = [p for g in self.param_groups for p in g["params"]]
        kinds = {p.type() for p in self._all_params}
        if len(kinds) > 1:
            first, other = self._all_params[0].type(), next(k for k in kinds if k != self._all_params[0].type())
            raise ValueError("ZeroRedundancyOptimizer only supports using the same dense type for all parameters "
                             f"but got both {first} and {other}")
        self._optim_defaults, self._optim_constructor = defaults, optimizer_class
        self.process_group = process_group if process_group is not None else c10d.group.WORLD
        self.world_size = c10d.get_world_size(self.process_group)
        self.rank = c10d.get_rank(self.process_group)
        self.global_rank = exchange.get_global_rank(self.process_group, self.rank)
        self.parameters_as_bucket_view = parameters_as_bucket_view  # a layout choice; the broadcasts are per tensor
        self._overlap_with_ddp = False
        self._all_state_dicts: list[dict] = []
        self._clear_cache()
        self.optim = optimizer_class(self._partition_parameters()[self.rank], **defaults)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)  # the class's defaults, globally seen
        self.initialized = True

    def _clear_cache(self) -> None:
        self._partition_parameters_cache: list[list[dict]] = []
        self._param_to_rank_cache: dict[Tensor, int] = {}
        self._param_to_index_cache: dict[Tensor, int] = {}

    def _partition_parameters(self) -> list[list[dict]]:
        """Per rank, its share of each parameter group (hyper-parameters and the rank's params)."""
        if not self._partition_parameters_cache:
            per_rank: list[list[dict]] = [[] for _ in range(self.world_size)]
            sizes = [0] * self.world_size
            for group in self.param_groups:
                shares: list[list[Tensor]] = [[] for _ in range(self.world_size)]
                for p in sorted(group["params"], key=lambda t: t.numel(), reverse=True):
                    rank = sizes.index(min(sizes))
                    shares[rank].append(p)
                    sizes[rank] += p.numel()
                for rank, share in enumerate(shares):
                    per_rank[rank].append({**{k: v for k, v in group.items() if k != "params"}, "params": share})
            self._partition_parameters_cache = per_rank
        return self._partition_parameters_cache

    @property
    def _param_to_rank(self) -> dict[Tensor, int]:
        if not self._param_to_rank_cache:
            self._param_to_rank_cache = {p: rank for rank, groups in enumerate(self._partition_parameters())
                                         for g in groups for p in g["params"]}
        return self._param_to_rank_cache

    @property
    def _param_to_index(self) -> dict[Tensor, int]:
        if not self._param_to_index_cache:
            self._param_to_index_cache = {p: i for i, p in enumerate(p for g in self.param_groups
                                                                     for p in g["params"])}
        return self._param_to_index_cache

    @staticmethod
    def _sync_param_groups(src: list[dict], dst: list[dict]) -> None:
        """Copy every hyper-parameter (all but the params) of `src`'s groups into `dst`'s."""
        for s, d in zip(src, dst):
            for k, v in s.items():
                if k != "params":
                    d[k] = v

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group to every rank's view and this rank's share of it to the local optimizer (call it on all
        ranks)."""
        super().add_param_group(param_group)
        if self.initialized:
            self._all_params = [p for g in self.param_groups for p in g["params"]]
            self._clear_cache()
            groups = self._partition_parameters()[self.rank]
            if len(groups) == len(self.optim.param_groups) + 1:
                self.optim.add_param_group(groups[-1])

    def _sync_params(self) -> None:
        """Each rank's share, broadcast from its owner to every rank."""
        works = []
        for rank, groups in enumerate(self._partition_parameters()):
            src = exchange.get_global_rank(self.process_group, rank)
            for g in groups:
                for p in g["params"]:
                    works.append(c10d.broadcast(p.detach(), src, group=self.process_group, async_op=True))
        for w in works:
            w.wait()

    def step(self, closure=None, **kwargs):
        """Step the local optimizer over this rank's share, then broadcast every share (call it on all ranks)."""
        Join.notify_join_context(self)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        loss = self.optim.step(**kwargs) if closure is None else self.optim.step(closure=closure, **kwargs)
        self._sync_param_groups(self.optim.param_groups, self.param_groups)
        self._sync_params()
        return loss

    def consolidate_state_dict(self, to: int = 0) -> None:
        """Collect every rank's local optimizer state on rank `to` of the group (call it on all ranks)."""
        self._sync_param_groups(self.param_groups, self.optim.param_groups)
        gathered = [None] * self.world_size if self.rank == to else None
        objects.gather_object(self.optim.state_dict(), gathered, group=self.process_group,
                              dst=exchange.get_global_rank(self.process_group, to))
        self._all_state_dicts = gathered or []

    def state_dict(self) -> dict[str, Any]:
        """Every parameter's state under its global index, with the global groups (after
        `consolidate_state_dict(to=this rank)`)."""
        if not self._all_state_dicts:
            raise RuntimeError("Optimizer state has not been consolidated on this rank. Please call "
                               f"`consolidate_state_dict(to={self.rank})` on all ranks beforehand if you meant to "
                               "save the global state.")
        out = super().state_dict()
        for local, shares in zip(self._all_state_dicts, self._partition_parameters()):
            for local_group, share in zip(local["param_groups"], shares):
                for local_index, p in zip(local_group["params"], share["params"]):
                    if local_index in local["state"]:
                        out["state"][self._param_to_index[p]] = local["state"][local_index]
        out["state"] = dict(sorted(out["state"].items()))
        return out

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Load this rank's share of a `state_dict()` (every rank loads the same dict) and its hyper-parameters."""
        params = [p for g in self.param_groups for p in g["params"]]
        mine = {i: v for i, v in state_dict["state"].items() if self._param_to_rank[params[i]] == self.rank}
        super().load_state_dict({**state_dict, "state": mine})  # checks the groups, casts the state to each param
        for p in [params[i] for i in mine]:
            self.optim.state[p] = self.state.pop(p)
        self._sync_param_groups(state_dict["param_groups"], self.param_groups)
        self._sync_param_groups(self.param_groups, self.optim.param_groups)

    def join_hook(self, **kwargs) -> JoinHook:
        """The hook that keeps a joined rank stepping and broadcasting its share."""
        return _ZeROJoinHook(self)

    @property
    def join_device(self):
        return self._all_params[0].device

    @property
    def join_process_group(self):
        return self.process_group
