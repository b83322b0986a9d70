"""What an optimizer's state_dict holds and how load_state_dict maps it back, as checkpoint-debugging code prints it:
named parameters (param_names in the groups), state cast to the new parameters' dtype while 'step' stays float32,
deepcopy and pickle of a live optimizer, the defaultdict state, state for parameters that never had a grad, loading
an Adam state into Adam with amsgrad, and the repr of multi-group optimizers."""

import copy
import io
import pickle

import torch
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)

net = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
X, y = torch.randn(8, 3), torch.randn(8, 1)


def step(model, opt, n=2):
    dtype = next(model.parameters()).dtype
    for _ in range(n):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(X.to(dtype)), y.to(dtype))
        loss.backward()
        opt.step()
    return round(loss.item(), 4)


# named parameters: param_names appear in each group and in the state_dict
opt = torch.optim.Adam(net.named_parameters(), lr=0.01)
print("loss:", step(net, opt))
sd = opt.state_dict()
print("group keys:", sorted(sd["param_groups"][0]))
print("param_names:", sd["param_groups"][0]["param_names"])
print("params:", sd["param_groups"][0]["params"])
print(opt)

# per-group named parameters with options
opt_g = torch.optim.SGD([{"params": list(net[0].named_parameters()), "lr": 0.1},
                         {"params": list(net[2].named_parameters()), "momentum": 0.9}], lr=0.01)
print("named groups:", [g["param_names"] for g in opt_g.param_groups])
try:
    torch.optim.SGD([{"params": list(net[0].named_parameters())}, {"params": list(net[2].parameters())}], lr=0.1)
except ValueError as e:
    print("ValueError:", e)

# loading casts state to the parameter's dtype and device; step stays float32
net64 = copy.deepcopy(net).double()
opt64 = torch.optim.Adam(net64.named_parameters(), lr=0.01)
opt64.load_state_dict(sd)
st = opt64.state[net64[0].weight]
print("cast:", st["exp_avg"].dtype, st["exp_avg_sq"].dtype, "step:", st["step"].dtype, st["step"])
print("loss float64:", step(net64, opt64))

# a state dict is keyed by position: loading into reversed parameters mismatches shapes silently
rev = torch.optim.Adam(list(net.parameters())[::-1], lr=0.01)
rev.load_state_dict(torch.optim.Adam(net.parameters(), lr=0.01).state_dict())
plain = {k: v for k, v in sd["param_groups"][0].items() if k != "param_names"}
rev.load_state_dict({"state": sd["state"], "param_groups": [plain]})
print("reversed load shapes match:", [tuple(rev.state[p]["exp_avg"].shape) == tuple(p.shape)
                                      for p in rev.param_groups[0]["params"]])

# parameters that never got a grad have no state
extra = nn.Parameter(torch.zeros(2))
opt2 = torch.optim.Adam([*net.parameters(), extra], lr=0.01)
step(net, opt2, 1)
sd2 = opt2.state_dict()
print("state ids:", sorted(sd2["state"]), "params:", sd2["param_groups"][0]["params"], "extra in state:",
      extra in opt2.state)
print("state type:", type(opt2.state).__name__, "lookup makes entry:", len(opt2.state[extra]), extra in opt2.state)

# Adam -> Adam(amsgrad=True): the saved groups' options win, amsgrad's buffer would be created lazily
opt3 = torch.optim.Adam(net.parameters(), lr=0.05, amsgrad=True)
opt3.load_state_dict(torch.optim.Adam(net.parameters(), lr=0.01).state_dict())
print("after load:", opt3.param_groups[0]["lr"], opt3.param_groups[0]["amsgrad"])

# deepcopy and pickle of a live optimizer
opt4 = torch.optim.RMSprop(net.parameters(), lr=0.01, momentum=0.5, centered=True)
step(net, opt4)
clone = copy.deepcopy(opt4)
p0 = clone.param_groups[0]["params"][0]
print("deepcopy shares params:", p0 is net[0].weight, "state keys:", sorted(clone.state[p0]))
blob = pickle.dumps(opt4)
back = pickle.loads(blob)
print("pickled:", type(back).__name__, len(back.param_groups[0]["params"]), sorted(back.defaults)[:4])

# save/load through torch.save with weights_only
buf = io.BytesIO()
torch.save(opt4.state_dict(), buf)
buf.seek(0)
loaded = torch.load(buf, weights_only=True)
print("weights_only load:", sorted(loaded), [sorted(v) for v in loaded["state"].values()][0])
print("grad_avg[0]:", loaded["state"][0]["grad_avg"][0])
try:
    opt4.load_state_dict({"state": {}})
except KeyError as e:
    print("KeyError:", e)

# a checkpoint written by an old PyTorch: no maximize/foreach/capturable keys, 'step' saved as a number
fresh = torch.optim.Adam(net.parameters(), lr=0.01)
step(net, fresh, 1)
cur = fresh.state_dict()
legacy = {"state": {i: dict(s, step=int(s["step"])) for i, s in cur["state"].items()},
          "param_groups": [{k: v for k, v in g.items() if k in ("lr", "betas", "eps", "weight_decay", "amsgrad",
                                                                 "params")} for g in cur["param_groups"]]}
resumed = torch.optim.Adam(net.parameters(), lr=0.5)
resumed.load_state_dict(legacy)
print("legacy groups:", sorted(resumed.param_groups[0]))
print("legacy step:", type(resumed.state[net[0].weight]["step"]).__name__, resumed.state[net[0].weight]["step"])
print("legacy loss:", step(net, resumed, 2), resumed.state[net[0].weight]["step"])
