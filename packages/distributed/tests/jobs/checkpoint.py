"""DCP save/load and DeviceMesh across the ranks of this job (argv[1]: an empty directory); one OK line per check."""

import datetime
import os
import sys
import warnings

import numpy as np

import ember.autograd as torch
import ember.distributed as dist
import ember.distributed.checkpoint as dcp
import ember.nn as nn
import ember.optim as optim
from ember.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from ember.distributed.device_mesh import init_device_mesh

warnings.simplefilter("error")  # in a group DCP never falls back to one process (that warns)
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=60))
r, n = dist.get_rank(), dist.get_world_size()
root = sys.argv[1]


def ok(name, cond=True):
    assert cond, f"rank {r}: {name}"
    print(f"rank {r} OK {name}", flush=True)


# every rank saves the same "shared" tensor and its own key; the shared one is written once, by rank 0
ck = os.path.join(root, "ck")
sd = {"shared": torch.full((3,), 7.0), f"only{r}": torch.tensor([float(r)]), "meta": {"step": 10, "rank": r}}
md = dcp.save(sd, checkpoint_id=ck)
keys = sorted(md.state_dict_metadata)
ok("metadata lists every rank's keys", keys == sorted(["shared", "meta.step", "meta.rank"] + [f"only{k}" for k in
                                                                                             range(n)]))
ok("one data file per rank", sorted(os.listdir(ck)) == [".metadata"] + [f"__{k}_0.distcp" for k in range(n)])
where = {i.fqn: s.relative_path for i, s in md.storage_data.items()}
ok("a replicated key is written by the lowest rank", where["shared"] == "__0_0.distcp"
   and where[f"only{r}"] == f"__{r}_0.distcp")

back = {"shared": torch.zeros(3), f"only{r}": torch.zeros(1), "meta": {"step": 0, "rank": -1}}
dcp.load(back, checkpoint_id=ck)
ok("load fills each rank's tensors in place", back["shared"].tolist() == [7.0] * 3
   and back[f"only{r}"].tolist() == [float(r)] and back["meta"]["step"] == 10)
ok("a key several ranks saved loads rank 0's value", back["meta"]["rank"] == 0)

# a key only rank 1 lacks: every rank raises, naming rank 1 only
ask = {"shared": torch.zeros(3)} if r != 1 else {"missing": torch.zeros(1)}
try:
    dcp.load(ask, checkpoint_id=ck)
except dcp.CheckpointException as e:
    text = str(e)
    ok("a missing key on one rank fails on every rank", list(e.failures) == [1] and text.startswith(
        "CheckpointException ranks:dict_keys([1])") and text.endswith(
        "RuntimeError: Missing key in checkpoint state_dict: missing.\n"))

# DeviceMesh: 1-D over the whole job uses the default group; 2-D meshes make a group per line
mesh = init_device_mesh("cpu", (n,), mesh_dim_names=("dp",))
ok("1-D mesh: default group, local rank = rank", mesh.get_group() is dist.group.WORLD
   and mesh.get_local_rank() == r and mesh.get_coordinate() == (r,) and repr(mesh) ==
   f"DeviceMesh((dp={n}), 'cpu', stride=(1,))")
t = torch.tensor([float(r + 1)])
dist.all_reduce(t, group=mesh.get_group("dp"))
ok("all_reduce over the mesh's group", t.item() == n * (n + 1) / 2)
m2 = init_device_mesh("cpu", (1, n), mesh_dim_names=("pp", "dp"))
ok("(1, n) mesh: pp groups of one rank, dp the whole job", dist.get_process_group_ranks(m2.get_group("pp")) == [r]
   and m2.get_group("dp") is dist.group.WORLD and m2.get_local_rank("dp") == r and m2.get_local_rank("pp") == 0
   and repr(m2) == f"DeviceMesh((pp=1, dp={n}), 'cpu', stride=((), 1))" and repr(m2["dp"]) == repr(mesh))
m3 = init_device_mesh("cpu", (n // 2, 2), mesh_dim_names=("dp", "tp"))
ok("2-D mesh: tp pairs neighbours, dp strides by 2", dist.get_process_group_ranks(m3.get_group("tp")) ==
   [r - r % 2, r - r % 2 + 1] and dist.get_process_group_ranks(m3.get_group("dp")) == list(range(r % 2, n, 2))
   and m3["tp"].mesh.tolist() == [r - r % 2, r - r % 2 + 1] and m3.get_coordinate() == (r // 2, r % 2))
try:
    init_device_mesh("cpu", (n + 1,))
except RuntimeError as e:
    ok("a mesh bigger than the job raises", str(e) == f"Mesh should not be bigger than default world size {n}, "
       f"but found {n + 1} ranks!")

# a DDP model and its optimizer through get_state_dict/set_state_dict and DCP
torch.manual_seed(0)
model = dist.DistributedDataParallel(nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1)))
opt = optim.Adam(model.parameters(), lr=0.05)
for _ in range(2):
    opt.zero_grad()
    model(torch.randn(8, 3)).pow(2).mean().backward()
    opt.step()
msd, osd = get_state_dict(model, opt)
ok("state dict keys drop DDP's module. prefix", list(msd) == ["0.weight", "0.bias", "2.weight", "2.bias"]
   and list(osd["state"]) == list(msd))
dcp.save({"model": msd, "optim": osd}, checkpoint_id=os.path.join(root, "train"))
want = [p.detach().clone() for p in model.parameters()]
with torch.no_grad():
    for p in model.parameters():
        p.zero_()
msd2, osd2 = get_state_dict(model, opt)
dcp.load({"model": msd2, "optim": osd2}, checkpoint_id=os.path.join(root, "train"))
set_state_dict(model, opt, model_state_dict=msd2, optim_state_dict=osd2)
ok("parameters and Adam state restored", all(np.array_equal(p.detach().numpy(), w.numpy())
                                             for p, w in zip(model.parameters(), want))
   and float(opt.state_dict()["state"][0]["step"]) == 2.0)
dist.destroy_process_group()
print(f"rank {r} DONE", flush=True)
