"""The AppState pattern of PyTorch's DCP tutorial: a Stateful object whose state_dict() gathers model and
optimizer state through get_state_dict, saved and restored by dcp.save/dcp.load, plus RNG and counters."""
import os
import tempfile
import warnings

import torch
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.checkpoint.stateful import Stateful

nn = torch.nn
F = torch.nn.functional
warnings.filterwarnings("ignore", message="torch.distributed is disabled")


class ToyModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.net1 = nn.Linear(8, 16)
        self.relu = nn.ReLU()
        self.net2 = nn.Linear(16, 4)

    def forward(self, x):
        return self.net2(self.relu(self.net1(x)))


class AppState(Stateful):
    """Model + optimizer + how far training got, as one checkpointable value."""

    def __init__(self, model, optimizer, epoch=0):
        self.model, self.optimizer, self.epoch = model, optimizer, epoch
        self.loaded = 0

    def state_dict(self):
        model_sd, optim_sd = get_state_dict(self.model, self.optimizer)
        return {"model": model_sd, "optim": optim_sd, "epoch": self.epoch}

    def load_state_dict(self, state_dict):
        set_state_dict(self.model, self.optimizer, model_state_dict=state_dict["model"],
                       optim_state_dict=state_dict["optim"])
        self.epoch = state_dict["epoch"]
        self.loaded += 1


print(isinstance(AppState(None, None), Stateful), isinstance(nn.Linear(1, 1), Stateful), isinstance(3, Stateful))
torch.manual_seed(0)
model = ToyModel()
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9, nesterov=True)
x, y = torch.randn(20, 8), torch.randn(20, 4)
for epoch in range(3):
    opt.zero_grad()
    loss = F.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    print("epoch", epoch, round(loss.item(), 4))

app = AppState(model, opt, epoch=3)
print(sorted(app.state_dict()), sorted(app.state_dict()["optim"]["state"]["net1.weight"]))
with tempfile.TemporaryDirectory() as root:
    ck = os.path.join(root, "app")
    md = dcp.save({"app": app, "rng": torch.get_rng_state(), "note": "three epochs"}, checkpoint_id=ck)
    print(sorted(k for k in md.state_dict_metadata if not k.startswith("app.optim.param_groups")))
    print(md.state_dict_metadata["rng"].size, md.state_dict_metadata["rng"].properties.dtype)
    after_save = torch.randn(3)

    torch.manual_seed(123)
    model2 = ToyModel()
    opt2 = torch.optim.SGD(model2.parameters(), lr=0.5, momentum=0.1)
    app2 = AppState(model2, opt2)
    state = {"app": app2, "rng": torch.get_rng_state(), "note": ""}
    dcp.load(state, checkpoint_id=ck)
    print("loaded", app2.loaded, app2.epoch, state["note"], state["app"] is app2)
    torch.set_rng_state(state["rng"])
    print("rng restored", torch.equal(torch.randn(3), after_save))
    print("lr", opt2.param_groups[0]["lr"], opt2.param_groups[0]["momentum"], opt2.param_groups[0]["nesterov"])
    buf = opt2.state[model2.net2.bias]["momentum_buffer"]
    print("momentum", buf.round(decimals=4).tolist())
    print(torch.equal(model2.net1.weight, model.net1.weight))
    for epoch in range(3, 5):
        for m, o in ((model, opt), (model2, opt2)):
            o.zero_grad()
            F.mse_loss(m(x), y).backward()
            o.step()
        print("epoch", epoch, round(F.mse_loss(model(x), y).item(), 4), round(F.mse_loss(model2(x), y).item(), 4))
