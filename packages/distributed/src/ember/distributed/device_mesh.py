"""`DeviceMesh`: the job's ranks laid out as an n-dimensional array with a process group along each
dimension (data parallel across rows, tensor parallel along columns ...), and `init_device_mesh`.

Every rank builds the same mesh: each dimension's groups are made with `new_group`, collectively and in
the same order on every rank, and a dimension whose group spans the whole default group uses that group.
"""

from __future__ import annotations

import os

import numpy as np

from ember.core.tensor import Tensor
from ember.distributed import c10d

__all__ = ["DeviceMesh", "init_device_mesh"]


def _default_group() -> c10d.ProcessGroup:
    """The default group; started from the launcher's environment when none is, as PyTorch does."""
    if not c10d.is_initialized():
        for var in ("RANK", "WORLD_SIZE"):
            if var not in os.environ:
                raise ValueError("Error initializing torch.distributed using env:// rendezvous: environment "
                                 f"variable {var} expected, but not set")
        c10d.init_process_group()
    return c10d._default()


def _strides(shape: tuple[int, ...]) -> tuple:
    """Row-major strides of `shape`, with `()` for a dimension of size 1 (as PyTorch's mesh layout prints)."""
    out, step = [], 1
    for n in reversed(shape):
        out.append(() if n == 1 else step)
        step *= n
    return tuple(reversed(out))


class DeviceMesh:
    """The ranks of `mesh` (an integer array or tensor of global ranks) on devices of `device_type`.

    Args:
        device_type: "cpu" or "cuda" (a device type, without an index).
        mesh: the global ranks, one per mesh position.
        mesh_dim_names: a name per dimension, for `mesh["dp"]`, `get_group("dp")` ...

    Raises:
        ValueError: no process group is initialized and the launcher's RANK/WORLD_SIZE are not set.
        RuntimeError: the mesh holds more ranks than the default group, or a device type with an index.
    """

    def __init__(self, device_type: str, mesh=None, *, mesh_dim_names: tuple[str, ...] | None = None,
                 backend_override=None, _init_backend: bool = True, _groups=None, _strides_=None) -> None:
        if ":" in str(device_type):
            raise RuntimeError(f"Device type with index is not supported but got {device_type}. ",
                               "If you maintained a 'torch.device' object, it's recommended to pass in "
                               "'device.type'.")
        world = _default_group()
        ranks = np.asarray(mesh.tolist() if isinstance(mesh, Tensor) else mesh, dtype=np.int64)
        if ranks.size > world.size():
            raise RuntimeError(f"Mesh should not be bigger than default world size {world.size()}, but found "
                               f"{ranks.size} ranks!")
        self.device_type = str(device_type)
        self._ranks = ranks
        self.mesh_dim_names = tuple(mesh_dim_names) if mesh_dim_names is not None else None
        self._stride = _strides_ if _strides_ is not None else _strides(ranks.shape)
        me = world.ranks[world.rank()]
        found = np.argwhere(ranks == me)
        self._coordinate = tuple(int(i) for i in found[0]) if len(found) else None
        self._groups = _groups if _groups is not None else [self._dim_group(world, d) for d in range(ranks.ndim)]

    def _dim_group(self, world: c10d.ProcessGroup, dim: int) -> c10d.ProcessGroup | None:
        """This rank's group along `dim`; every rank creates every group of the dimension, in order."""
        lines = np.moveaxis(self._ranks, dim, -1).reshape(-1, self._ranks.shape[dim])
        mine = None
        for line in lines:
            ranks = sorted(int(r) for r in line)
            pg = world if ranks == world.ranks else c10d.new_group(ranks)
            if self._coordinate is not None and world.ranks[world.rank()] in ranks:
                mine = pg
        return mine

    @property
    def mesh(self) -> Tensor:
        """The global ranks as an int32 tensor of the mesh's shape."""
        return Tensor._wrap(self._ranks.astype(np.int32))

    @property
    def ndim(self) -> int:
        return self._ranks.ndim

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._ranks.shape)

    def size(self, mesh_dim: int | None = None) -> int:
        """The number of ranks in the mesh, or along dimension `mesh_dim`."""
        return int(self._ranks.size) if mesh_dim is None else self._ranks.shape[mesh_dim]

    def get_rank(self) -> int:
        """This process's global rank."""
        return c10d.get_rank()

    def get_coordinate(self) -> tuple[int, ...] | None:
        """This rank's index in the mesh (None when the mesh does not hold it)."""
        return self._coordinate

    def _dim(self, mesh_dim: int | str | None, what: str) -> int:
        if mesh_dim is None:
            if self.ndim > 1:
                extra = ("If you want to get the list of all the ProcessGroups in the DeviceMesh,please use "
                         "`get_all_groups()` instead.",) if what == "get_group" else ()
                raise RuntimeError(f"Found the DeviceMesh have {self.ndim} dimensions",
                                   "Optional kwarg `mesh_dim` needs to be specified when device_mesh.ndim > 1.",
                                   *extra)
            return 0
        if isinstance(mesh_dim, str):
            if self.mesh_dim_names is None or mesh_dim not in self.mesh_dim_names:
                raise KeyError(f"Mesh dimension '{mesh_dim}' does not exist.",
                               f"Available mesh dimensions are: mesh_dim_names={self.mesh_dim_names}")
            return self.mesh_dim_names.index(mesh_dim)
        return mesh_dim

    def get_group(self, mesh_dim: int | str | None = None) -> c10d.ProcessGroup:
        """This rank's process group along `mesh_dim` (a name or an index; may be left out on a 1-D mesh)."""
        return self._groups[self._dim(mesh_dim, "get_group")]

    def get_all_groups(self) -> list[c10d.ProcessGroup]:
        """This rank's group along each dimension."""
        return list(self._groups)

    def get_local_rank(self, mesh_dim: int | str | None = None) -> int:
        """This rank's rank in its group along `mesh_dim`."""
        return c10d.get_rank(self._groups[self._dim(mesh_dim, "get_local_rank")])

    def __getitem__(self, mesh_dim_names: str | tuple[str, ...]) -> DeviceMesh:
        """The sub-mesh over the named dimensions that holds this rank (the other coordinates fixed to its)."""
        if not self.mesh_dim_names:
            raise RuntimeError("Cannot slice a DeviceMesh without mesh_dim_names!")
        names = (mesh_dim_names,) if isinstance(mesh_dim_names, str) else tuple(mesh_dim_names)
        if names == self.mesh_dim_names:
            return self
        if any(n not in self.mesh_dim_names for n in names) or len(set(names)) != len(names):
            raise KeyError(f"Invalid mesh_dim_names {names} specified. Valid mesh_dim_names are "
                           f"{list(self.mesh_dim_names)}.")
        dims = [self.mesh_dim_names.index(n) for n in names]
        coord = self._coordinate or (0,) * self.ndim
        index = tuple(slice(None) if d in dims else coord[d] for d in range(self.ndim))
        sub = np.transpose(self._ranks[index], np.argsort(np.argsort(dims)))
        mesh = object.__new__(DeviceMesh)
        mesh.device_type, mesh._ranks, mesh.mesh_dim_names = self.device_type, sub, names
        mesh._stride = tuple(self._stride[d] for d in dims)
        mesh._coordinate = tuple(coord[d] for d in dims) if self._coordinate is not None else None
        mesh._groups = [self._groups[d] for d in dims]
        return mesh

    def __repr__(self) -> str:
        if self.mesh_dim_names:
            dims = "(" + ", ".join(f"{n}={s}" for n, s in zip(self.mesh_dim_names, self.shape)) + ")"
        else:
            dims = repr(self.shape)
        return f"DeviceMesh({dims}, '{self.device_type}', stride={self._stride!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, DeviceMesh) and (
            (self.device_type, self.shape, self._ranks.tolist(), self.mesh_dim_names)
            == (other.device_type, other.shape, other._ranks.tolist(), other.mesh_dim_names))

    def __hash__(self) -> int:
        return hash((self.device_type, self.shape, tuple(self._ranks.ravel().tolist()), self.mesh_dim_names))


def init_device_mesh(device_type: str, mesh_shape: tuple[int, ...], *,
                     mesh_dim_names: tuple[str, ...] | None = None, backend_override=None) -> DeviceMesh:
    """A DeviceMesh of `mesh_shape` over the ranks 0, 1, ... in row-major order.

    Example (a process started without a launcher is a group of one):
        >>> init_process_group = c10d.init_process_group
        >>> init_process_group("gloo")
        >>> init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
        DeviceMesh((dp=1), 'cpu', stride=((),))
        >>> c10d.destroy_process_group()

    Raises:
        RuntimeError: names that are not one per dimension, or repeat; more ranks than the default group.
    """
    mesh_shape = tuple(mesh_shape)
    if mesh_dim_names is not None:
        if len(set(mesh_dim_names)) != len(mesh_dim_names):
            raise RuntimeError("Each mesh_dim_name must be unique. Found repeated mesh_dim_name in "
                               f"mesh_dim_names {mesh_dim_names}")
        if len(mesh_shape) != len(mesh_dim_names):
            raise RuntimeError("mesh_shape and mesh_dim_names should have same length! Found "
                               f"len(mesh_dim_names): {len(mesh_dim_names)} and len(mesh_shape):{len(mesh_shape)}.")
    if ":" in str(device_type):
        raise RuntimeError(f"Device type with index is not supported but got {device_type}. ",
                           "If you maintained a 'torch.device' object, it's recommended to pass in 'device.type'.")
    ranks = np.arange(int(np.prod(mesh_shape)), dtype=np.int64).reshape(mesh_shape)
    return DeviceMesh(device_type, ranks, mesh_dim_names=mesh_dim_names)
