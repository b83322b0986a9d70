"""Data parallel training in a world of one, the way a multi-GPU script is written: a DeviceMesh, DDP over its
group, the state_dict helpers (which drop DDP's "module." prefix) and DCP saving inside the process group."""
import os
import tempfile

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import (StateDictOptions, get_model_state_dict,
                                                     get_optimizer_state_dict, get_state_dict, set_model_state_dict,
                                                     set_optimizer_state_dict)
from torch.distributed.device_mesh import init_device_mesh
from torch.nn.parallel import DistributedDataParallel as DDP

nn = torch.nn
F = torch.nn.functional

dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
mesh = init_device_mesh("cpu", (dist.get_world_size(),), mesh_dim_names=("dp",))
print(mesh, mesh.get_local_rank("dp"))


def build(seed):
    torch.manual_seed(seed)
    net = nn.Sequential(nn.Linear(5, 8), nn.SiLU(), nn.Linear(8, 1))
    return DDP(net, device_mesh=mesh)


model = build(0)
print(model.process_group is mesh.get_group(), model.device_mesh is mesh)
print(list(model.state_dict())[:2])
opt = torch.optim.Adam(model.parameters(), lr=0.02)
torch.manual_seed(1)
X, Y = torch.randn(32, 5), torch.randn(32, 1)
for i in range(4):
    opt.zero_grad()
    loss = F.mse_loss(model(X), Y)
    loss.backward()
    opt.step()
    print("step", i, round(loss.item(), 4))

msd, osd = get_state_dict(model, opt)
print(list(msd), list(osd["state"]))
print(list(get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))))
flat = get_optimizer_state_dict(model, opt, options=StateDictOptions(flatten_optimizer_state_dict=True))
print(len(flat), [k for k in flat if k.startswith("state.0.bias")])

with tempfile.TemporaryDirectory() as root:
    ck = os.path.join(root, "ddp")
    md = dcp.save({"model": msd, "optim": osd}, checkpoint_id=ck, process_group=mesh.get_group())
    print(sorted(os.listdir(ck)), len(md.state_dict_metadata))

    model2 = build(7)
    opt2 = torch.optim.Adam(model2.parameters(), lr=0.5)
    print("differs", not torch.equal(model2.module[0].weight, model.module[0].weight))
    msd2 = get_model_state_dict(model2)
    osd2 = get_optimizer_state_dict(model2, opt2)
    dcp.load({"model": msd2, "optim": osd2}, checkpoint_id=ck)
    print(set_model_state_dict(model2, msd2))
    set_optimizer_state_dict(model2, opt2, osd2)
    print("lr", opt2.param_groups[0]["lr"], "same", torch.equal(model2.module[2].bias, model.module[2].bias))
    for m, o in ((model, opt), (model2, opt2)):
        o.zero_grad()
        F.mse_loss(m(X), Y).backward()
        o.step()
    print("next step agrees", torch.allclose(model(X), model2(X)))

    state = {"w": torch.zeros(8, 5)}
    dcp.load({"model": {"0.weight": state["w"]}}, checkpoint_id=ck, no_dist=True)
    print("no_dist load", round(state["w"].sum().item(), 4))

for bad in (lambda: DDP(nn.Linear(2, 2), process_group=mesh.get_group(), device_mesh=mesh),
            lambda: DDP(nn.Linear(2, 2), device_mesh=init_device_mesh("cpu", (1, 1), mesh_dim_names=("a", "b")))):
    try:
        bad()
    except RuntimeError as e:
        print(type(e).__name__, e)
dist.destroy_process_group()
