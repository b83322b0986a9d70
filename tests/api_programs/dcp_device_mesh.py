"""DeviceMesh in one process: the error without a process group, then a world of one (gloo over a HashStore),
1-D and 2-D meshes, their groups, local ranks, coordinates, slicing by name, reprs and PyTorch's errors."""
import os

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh


def show(fn):
    try:
        print(fn())
    except Exception as e:
        print(type(e).__name__, e)


os.environ.pop("RANK", None)
print(dist.is_initialized(), dist.DeviceMesh is DeviceMesh, dist.init_device_mesh is init_device_mesh)
show(lambda: init_device_mesh("cpu", (1,), mesh_dim_names=("dp",)))

dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
print(dist.is_initialized(), dist.get_world_size(), dist.get_backend())

mesh = init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
print(mesh)
print(type(mesh), mesh.device_type, mesh.ndim, mesh.shape, mesh.mesh_dim_names)
print(mesh.mesh, mesh.mesh.dtype, mesh.size(), mesh.size(0))
print(mesh.get_rank(), mesh.get_local_rank(), mesh.get_local_rank("dp"), mesh.get_coordinate())
pg = mesh.get_group()
print(pg is dist.group.WORLD, mesh.get_group("dp") is pg, len(mesh.get_all_groups()))
print(dist.get_world_size(pg), dist.get_rank(pg), dist.get_process_group_ranks(pg))
print(mesh["dp"] is mesh, mesh == DeviceMesh("cpu", [0], mesh_dim_names=("dp",)))

t = torch.tensor([1.5, -2.0])
dist.all_reduce(t, group=mesh.get_group("dp"))
print("all_reduce", t.tolist())
out = [torch.zeros(2)]
dist.all_gather(out, t, group=mesh.get_group())
print("all_gather", [o.tolist() for o in out])

mesh2 = init_device_mesh("cpu", (1, 1), mesh_dim_names=("dp", "tp"))
print(mesh2, mesh2.mesh.tolist(), mesh2.get_coordinate(), mesh2.size(), mesh2.size(1))
print(mesh2["tp"], mesh2["dp"].mesh_dim_names, mesh2["dp", "tp"])
print(mesh2.get_local_rank("tp"), mesh2.get_local_rank(0), dist.get_world_size(mesh2.get_group("tp")))
anon = init_device_mesh("cpu", (1,))
print(anon, anon.mesh_dim_names)
print(DeviceMesh("cpu", torch.arange(1)), DeviceMesh("cpu", [[0]], mesh_dim_names=("a", "b")))

show(lambda: mesh["tp"])
show(lambda: mesh2["dp", "pp"])
show(lambda: mesh.get_group("tp"))
show(lambda: mesh.get_local_rank("zz"))
show(lambda: mesh2.get_group())
show(lambda: mesh2.get_local_rank())
show(lambda: anon["dp"])
show(lambda: init_device_mesh("cpu", (2,)))
show(lambda: init_device_mesh("cpu", (1,), mesh_dim_names=("a", "b")))
show(lambda: init_device_mesh("cpu", (1, 1), mesh_dim_names=("x", "x")))
show(lambda: init_device_mesh("cpu:0", (1,)))
show(lambda: mesh.size(1))
show(lambda: mesh[0])
dist.destroy_process_group()
print(dist.is_initialized())
