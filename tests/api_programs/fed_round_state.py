"""Round-to-round federated state through in-memory checkpoints: the server's model, optimizer (server-side
Adam as in FedOpt), round counter, generator state and client registry go through torch.save/torch.load on
io.BytesIO with weights_only=True, are restored into fresh objects, and the resumed run matches the original."""

import copy
import io

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def make():
    return nn.Sequential(nn.Linear(5, 8), nn.LayerNorm(8), nn.ReLU(), nn.Linear(8, 2))


data = [(torch.randn(20, 5) + k, torch.randint(0, 2, (20,))) for k in range(4)]


def run_round(model, server_opt, gen):
    chosen = torch.randperm(4, generator=gen)[:2]
    deltas = []
    for k in chosen.tolist():
        local = copy.deepcopy(model)
        opt = torch.optim.SGD(local.parameters(), lr=0.1)
        x, y = data[k]
        for _ in range(2):
            opt.zero_grad()
            F.cross_entropy(local(x), y).backward()
            opt.step()
        deltas.append([g.detach() - l.detach() for g, l in zip(model.parameters(), local.parameters())])
    server_opt.zero_grad()
    for i, p in enumerate(model.parameters()):
        p.grad = torch.stack([d[i] for d in deltas]).mean(0)
    server_opt.step()
    return chosen.tolist()


model = make()
server_opt = torch.optim.Adam(model.parameters(), lr=0.05, betas=(0.9, 0.99))
gen = torch.Generator().manual_seed(11)
for rnd in range(2):
    print("round", rnd, run_round(model, server_opt, gen))

buf = io.BytesIO()
ckpt = {"round": 2, "model": model.state_dict(), "opt": server_opt.state_dict(), "rng": gen.get_state(),
        "clients": {"ids": [0, 1, 2, 3], "sizes": torch.tensor([20, 20, 20, 20])}, "tag": "fedadam", "lr": 0.05}
torch.save(ckpt, buf)
print("bytes > 0", buf.tell() > 0)
buf.seek(0)
loaded = torch.load(buf, weights_only=True)
print("keys", sorted(loaded), type(loaded["clients"]["ids"]).__name__, loaded["rng"].dtype, loaded["rng"].shape)
print("opt state keys", sorted(loaded["opt"]), loaded["opt"]["param_groups"][0]["betas"],
      sorted(loaded["opt"]["state"][0]), loaded["opt"]["state"][0]["step"])

model2 = make()
opt2 = torch.optim.Adam(model2.parameters(), lr=0.05, betas=(0.9, 0.99))
print(model2.load_state_dict(loaded["model"]))
opt2.load_state_dict(loaded["opt"])
gen2 = torch.Generator()
gen2.set_state(loaded["rng"])
for rnd in range(2, 4):
    a = run_round(model, server_opt, gen)
    b = run_round(model2, opt2, gen2)
    print("round", rnd, a, b)
print("resumed equal", all(torch.equal(p, q) for p, q in zip(model.parameters(), model2.parameters())))
print("exp_avg_sq", round(opt2.state[model2[0].weight]["exp_avg_sq"].sum().item(), 6) > 0,
      opt2.state[model2[3].bias]["step"])

buf2 = io.BytesIO()
torch.save({k: v.to(torch.float16) for k, v in model.state_dict().items()}, buf2)
size16 = buf2.getbuffer().nbytes
buf2.seek(0)
half = torch.load(buf2, weights_only=True, map_location="cpu")
print("fp16", half["0.weight"].dtype, round((half["0.weight"].float() - model[0].weight).abs().max().item(), 3))
view_buf = io.BytesIO()
w = model[0].weight.detach()
torch.save([w, w[2:4]], view_buf)
view_buf.seek(0)
a, b = torch.load(view_buf, weights_only=True)
a[2, 0] = 100.0
print("views kept", b[0, 0].item(), a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr())


class Registry:
    def __init__(self):
        self.ids = [1, 2]


bad = io.BytesIO()
torch.save({"registry": Registry()}, bad)
bad.seek(0)
try:
    torch.load(bad, weights_only=True)
except Exception as e:
    print(type(e).__name__, "Unsupported global" in str(e), "__main__.Registry" in str(e))
bad.seek(0)
print("scan upload", torch.serialization.get_unsafe_globals_in_checkpoint(bad))
buf.seek(0)
print("scan clean", torch.serialization.get_unsafe_globals_in_checkpoint(buf))
bad.seek(0)
with torch.serialization.safe_globals([Registry]):
    print("allowlisted", torch.load(bad, weights_only=True)["registry"].ids,
          Registry in torch.serialization.get_safe_globals())
print("after block", Registry in torch.serialization.get_safe_globals())
bad.seek(0)
print("unsafe ok", torch.load(bad, weights_only=False)["registry"].ids)
g3 = gen2.clone_state()
print("clone_state", torch.equal(torch.rand(3, generator=g3), torch.rand(3, generator=gen2)), g3.initial_seed())
try:
    torch.serialization.get_unsafe_globals_in_checkpoint(io.BytesIO(b"not a checkpoint"))
except Exception as e:
    print(type(e).__name__, e)
try:
    opt2.load_state_dict({"state": {}, "param_groups": []})
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.load(io.BytesIO(b"not a checkpoint"), weights_only=True)
except Exception as e:
    print(type(e).__name__, str(e)[:60])
