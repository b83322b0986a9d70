"""Memory sharing around modules as checkpointing and weight-tying code relies on it: state_dict() tensors alias
the parameters (data_ptr, detached, writes visible), keep_vars, load_state_dict copying in place (pointers kept),
tied weights appearing once in parameters(), torch.save/load keeping views of one storage as views (offsets and
shared storage restored), share_memory() on a module, clone vs detach in EMA copies, and .data swaps."""

import io

import torch
import torch.nn as nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)

lin = nn.Linear(4, 3)
sd = lin.state_dict()
print("keys:", list(sd))
print("aliases weight:", sd["weight"].data_ptr() == lin.weight.data_ptr(), "requires_grad:", sd["weight"].requires_grad,
      "is leaf param:", isinstance(sd["weight"], nn.Parameter))
sd_vars = lin.state_dict(keep_vars=True)
print("keep_vars gives the Parameter:", sd_vars["weight"] is lin.weight)
sd["bias"].zero_()
print("write through state_dict reaches the module:", lin.bias.tolist())
ptr = lin.weight.data_ptr()
new = {"weight": torch.full((3, 4), 0.5), "bias": torch.arange(3.0)}
lin.load_state_dict(new)
print("load_state_dict copies in place:", lin.weight.data_ptr() == ptr, lin.bias.tolist())
new["bias"].fill_(9.0)
print("source not aliased after load:", lin.bias.tolist())
try:
    lin.load_state_dict({"weight": torch.zeros(4, 3), "bias": torch.zeros(3)})
except RuntimeError as e:
    print("shape mismatch:", str(e).splitlines()[1].strip())

# tied weights
emb = nn.Embedding(10, 4)
head = nn.Linear(4, 10, bias=False)
head.weight = emb.weight
model = nn.ModuleDict({"emb": emb, "head": head})
print("parameters counted once:", len(list(model.parameters())), "named:", [n for n, _ in model.named_parameters()])
print("state_dict keeps both keys:", list(model.state_dict()))
msd = model.state_dict()
print("both keys alias one storage:", msd["emb.weight"].data_ptr() == msd["head.weight"].data_ptr())

# save/load keeps views of one storage as views
base = torch.arange(12.0)
payload = {"base": base, "row": base.view(3, 4)[1], "col": base.view(3, 4)[:, 2], "tail": base[8:]}
buf = io.BytesIO()
torch.save(payload, buf)
buf.seek(0)
back = torch.load(buf)
for k, v in back.items():
    print(f"{k:4s} shape={tuple(v.shape)} stride={v.stride()} off={v.storage_offset()} "
          f"shares_base={v.untyped_storage().data_ptr() == back['base'].untyped_storage().data_ptr()}")
back["base"][5] = -1.0
print("write to loaded base seen by loaded row:", back["row"].tolist())
buf2 = io.BytesIO()
torch.save(base[8:].clone(), buf2)
print("a clone saves only its own bytes:", torch.load(io.BytesIO(buf2.getvalue())).untyped_storage().nbytes())
buf3 = io.BytesIO()
torch.save(base[8:], buf3)
print("a view saves the whole storage:", torch.load(io.BytesIO(buf3.getvalue())).untyped_storage().nbytes())

# share_memory on a module
net = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1))
print("before:", all(p.is_shared() for p in net.parameters()))
vals = [p.detach().clone() for p in net.parameters()]
net.share_memory()
print("after share_memory():", all(p.is_shared() for p in net.parameters()),
      "values kept:", all(torch.equal(a, p) for a, p in zip(vals, net.parameters())))

# EMA copies: clone vs detach
w = nn.Parameter(torch.randn(3))
ema_detached = w.detach()
ema_cloned = w.detach().clone()
with torch.no_grad():
    w.mul_(2)
print("detach follows the parameter:", torch.equal(ema_detached, w), "clone does not:", torch.equal(ema_cloned, w))
ema_cloned.mul_(0.9).add_(w.detach(), alpha=0.1)
print("ema:", ema_cloned)

# .data swaps
p = nn.Parameter(torch.ones(2, 2))
old_ptr = p.data_ptr()
p.data = torch.zeros(3)
print(".data swap changes shape and storage:", tuple(p.shape), p.data_ptr() != old_ptr,
      "still a Parameter:", isinstance(p, nn.Parameter), p.requires_grad)
q = nn.Parameter(torch.ones(2))
q.data.add_(1)
print(".data in-place: version", q._version, "values", q.tolist())
