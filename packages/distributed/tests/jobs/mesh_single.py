"""DeviceMesh in a group of one, started without a launcher; prints one OK line per check."""

import ember.distributed as dist
from ember.distributed.device_mesh import DeviceMesh, init_device_mesh
from ember.nn import Linear

dist.init_process_group("gloo")


def raises(name, fn, exc, args):
    try:
        fn()
    except exc as e:
        assert e.args == args, (name, e.args)
        print(f"OK {name}", flush=True)


m = init_device_mesh("cpu", (1,), mesh_dim_names=("dp",))
assert repr(m) == "DeviceMesh((dp=1), 'cpu', stride=((),))", repr(m)
assert (m.size(), m.get_rank(), m.get_local_rank(), m.get_local_rank("dp"), m.ndim) == (1, 0, 0, 0, 1)
assert m.get_group() is dist.group.WORLD and m.get_group("dp") is m.get_group(0) and m["dp"] is m
assert m.mesh.tolist() == [0] and str(m.mesh.dtype).endswith("int32") and m.mesh_dim_names == ("dp",)
print("OK 1-D mesh of one", flush=True)
m2 = init_device_mesh("cpu", (1, 1), mesh_dim_names=("dp", "tp"))
assert repr(m2) == "DeviceMesh((dp=1, tp=1), 'cpu', stride=((), ()))" and repr(m2["tp"]) == \
    "DeviceMesh((tp=1), 'cpu', stride=((),))" and m2.get_coordinate() == (0, 0)
assert repr(init_device_mesh("cpu", (1,))) == "DeviceMesh((1,), 'cpu', stride=((),))"
assert DeviceMesh("cpu", [0], mesh_dim_names=("dp",)) == m and DeviceMesh("cpu", [0]) != m
print("OK 2-D mesh and reprs", flush=True)
raises("slice unknown name", lambda: m["tp"], KeyError,
       ("Invalid mesh_dim_names ('tp',) specified. Valid mesh_dim_names are ['dp'].",))
raises("group of unknown name", lambda: m.get_group("tp"), KeyError,
       ("Mesh dimension 'tp' does not exist.", "Available mesh dimensions are: mesh_dim_names=('dp',)"))
raises("2-D get_group without a dim", lambda: m2.get_group(), RuntimeError,
       ("Found the DeviceMesh have 2 dimensions", "Optional kwarg `mesh_dim` needs to be specified when "
        "device_mesh.ndim > 1.", "If you want to get the list of all the ProcessGroups in the DeviceMesh,please "
        "use `get_all_groups()` instead."))
raises("2-D get_local_rank without a dim", lambda: m2.get_local_rank(), RuntimeError,
       ("Found the DeviceMesh have 2 dimensions", "Optional kwarg `mesh_dim` needs to be specified when "
        "device_mesh.ndim > 1."))
raises("slice without names", lambda: init_device_mesh("cpu", (1,))["dp"], RuntimeError,
       ("Cannot slice a DeviceMesh without mesh_dim_names!",))
raises("too big", lambda: init_device_mesh("cpu", (2,)), RuntimeError,
       ("Mesh should not be bigger than default world size 1, but found 2 ranks!",))
raises("device index", lambda: init_device_mesh("cuda:0", (1,)), RuntimeError,
       ("Device type with index is not supported but got cuda:0. ",
        "If you maintained a 'torch.device' object, it's recommended to pass in 'device.type'."))
ddp = dist.DistributedDataParallel(Linear(2, 2), device_mesh=m)
assert ddp.process_group is m.get_group() and ddp.device_mesh is m
print("OK DDP over a mesh's group", flush=True)
raises("DDP with a group and a mesh", lambda: dist.DistributedDataParallel(Linear(2, 2), process_group=m.get_group(),
                                                                          device_mesh=m), RuntimeError,
       ("Cannot specify both process_group and device_mesh arguments.",))
raises("DDP over a 2-D mesh", lambda: dist.DistributedDataParallel(Linear(2, 2), device_mesh=m2), RuntimeError,
       ("Only 1D device mesh is supported, but got DeviceMesh((dp=1, tp=1), 'cpu', stride=((), ())).",))
dist.destroy_process_group()
