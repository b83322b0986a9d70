"""'Saving and loading models' and the state_dict recipe: printing model and optimizer state_dicts, torch.save /
torch.load through io.BytesIO and files, whole-model pickles, a general checkpoint dict with the optimizer,
several models in one file, warmstarting with load_state_dict(strict=False) and renamed keys, the errors of
a strict load, saving tensor views, map_location and weights_only."""

import collections
import io
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

rng = np.random.default_rng(0)


def det(m):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)) * 0.1)
    return m


class TheModelClass(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 6, 5)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = self.pool(F.relu(self.conv1(x)))
        x = self.pool(F.relu(self.conv2(x)))
        x = x.view(-1, 16 * 5 * 5)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x


model = det(TheModelClass())
optimizer = optim.SGD(model.parameters(), lr=0.001, momentum=0.9)
print("Model's state_dict:")
for param_tensor in model.state_dict():
    print(param_tensor, "\t", model.state_dict()[param_tensor].size())
print("Optimizer's state_dict:")
for var_name in optimizer.state_dict():
    print(var_name, "\t", optimizer.state_dict()[var_name])
sd = model.state_dict()
print(type(sd).__name__, isinstance(sd, collections.OrderedDict), sd["fc3.bias"].requires_grad,
      sd["fc3.bias"].data_ptr() == model.fc3.bias.data_ptr(), hasattr(sd, "_metadata"))
print(sd._metadata[""], sd._metadata["conv1"])
x = torch.from_numpy(rng.standard_normal((2, 3, 32, 32)).astype(np.float32))
y = torch.tensor([3, 7])
for _ in range(2):
    optimizer.zero_grad()
    F.cross_entropy(model(x), y).backward()
    optimizer.step()
osd = optimizer.state_dict()
print("after steps", list(osd["state"].keys()), list(osd["state"][0].keys()), osd["param_groups"][0]["params"])

# save/load state_dict
buf = io.BytesIO()
torch.save(model.state_dict(), buf)
size = buf.tell()
buf.seek(0)
model2 = TheModelClass()
res = model2.load_state_dict(torch.load(buf, weights_only=True))
print(res, type(res).__name__, res.missing_keys, res.unexpected_keys, size > 200000)
model2.eval()
with torch.no_grad():
    print("same outputs", torch.equal(model(x), model2(x)), model2.training, model2.fc1.training)
print(np.round(model2(x).detach().numpy().astype(np.float64), 4).tolist()[0][:5])

with tempfile.TemporaryDirectory() as d:
    PATH = os.path.join(d, "model.pt")
    torch.save(model, PATH)
    m3 = torch.load(PATH, weights_only=False)
    print("whole model", type(m3).__name__, m3.fc3, torch.equal(m3.fc3.weight, model.fc3.weight))
    try:
        torch.load(PATH)
    except Exception as e:
        print(type(e).__name__, "weights_only load refused:", "Weights only load failed" in str(e))
    epoch, loss = 5, 0.4
    torch.save({
        "epoch": epoch,
        "model_state_dict": model.state_dict(),
        "optimizer_state_dict": optimizer.state_dict(),
        "loss": loss,
    }, os.path.join(d, "ckpt.tar"))
    model4 = TheModelClass()
    optimizer4 = optim.SGD(model4.parameters(), lr=0.5, momentum=0.1)
    checkpoint = torch.load(os.path.join(d, "ckpt.tar"), weights_only=True)
    model4.load_state_dict(checkpoint["model_state_dict"])
    optimizer4.load_state_dict(checkpoint["optimizer_state_dict"])
    epoch = checkpoint["epoch"]
    loss = checkpoint["loss"]
    model4.train()
    print("checkpoint", epoch, loss, optimizer4.param_groups[0]["lr"], optimizer4.param_groups[0]["momentum"])
    buf_a = optimizer.state[model.fc3.weight]["momentum_buffer"]
    buf_b = optimizer4.state[model4.fc3.weight]["momentum_buffer"]
    print("momentum restored", torch.equal(buf_a, buf_b), buf_b.data_ptr() != buf_a.data_ptr())
    for opt, m in ((optimizer, model), (optimizer4, model4)):
        opt.zero_grad()
        F.cross_entropy(m(x), y).backward()
        opt.step()
    print("resumed identically", torch.equal(model.fc3.weight, model4.fc3.weight))

    modelA, modelB = det(nn.Linear(4, 2)), det(nn.Linear(4, 2))
    optimizerA = optim.Adam(modelA.parameters(), lr=1e-3)
    optimizerB = optim.SGD(modelB.parameters(), lr=1e-2)
    torch.save({
        "modelA_state_dict": modelA.state_dict(),
        "modelB_state_dict": modelB.state_dict(),
        "optimizerA_state_dict": optimizerA.state_dict(),
        "optimizerB_state_dict": optimizerB.state_dict(),
    }, os.path.join(d, "multi.tar"))
    ck = torch.load(os.path.join(d, "multi.tar"), map_location=torch.device("cpu"))
    print("multi", sorted(ck), ck["optimizerA_state_dict"]["param_groups"][0]["betas"],
          ck["modelB_state_dict"]["weight"].device)
    ck = torch.load(os.path.join(d, "multi.tar"), map_location="cpu", weights_only=True)
    print("map_location str", ck["modelA_state_dict"]["bias"].dtype)


class NetA(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
        self.head = nn.Linear(8, 3)
        self.register_buffer("mean", torch.zeros(6))


class NetB(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(6, 8), nn.ReLU())
        self.classifier = nn.Linear(8, 5)
        self.register_buffer("mean", torch.zeros(6))
        self.register_buffer("scratch", torch.zeros(2), persistent=False)


netA = det(NetA())
netB = NetB()
try:
    netB.load_state_dict(netA.state_dict())
except RuntimeError as e:
    print(str(e))
res = netB.load_state_dict(netA.state_dict(), strict=False)
print("strict=False", res.missing_keys, res.unexpected_keys)
print("features warm", torch.equal(netB.features[0].weight, netA.features[0].weight))
renamed = {k.replace("head", "classifier"): v for k, v in netA.state_dict().items()}
try:
    netB.load_state_dict(renamed)
except RuntimeError as e:
    print(str(e))
filtered = {k: v for k, v in renamed.items() if netB.state_dict()[k].shape == v.shape}
print("filtered", sorted(filtered), netB.load_state_dict(filtered, strict=False))
print("buffers", list(netB.state_dict().keys()), [n for n, _ in netB.named_buffers()])
try:
    netB.load_state_dict({"features.0.weight": torch.zeros(8, 6)}, strict=True)
except RuntimeError as e:
    print(str(e).splitlines()[0])

# views share storage when saved
numbers = torch.arange(1, 10)
evens = numbers[1::2]
buf = io.BytesIO()
torch.save([numbers, evens], buf)
n_size = buf.tell()
buf.seek(0)
loaded_numbers, loaded_evens = torch.load(buf)
loaded_numbers *= 2
print("views", loaded_evens, loaded_evens.untyped_storage().data_ptr() == loaded_numbers.untyped_storage().data_ptr())
buf = io.BytesIO()
torch.save(evens.clone(), buf)
print("clone smaller", buf.tell() < n_size)
buf.seek(0)
t = torch.load(buf)
print(t, t.stride(), t.storage_offset())
sd = model.state_dict(prefix="backbone.", keep_vars=True)
print("prefix", list(sd)[:2], type(sd["backbone.fc3.bias"]).__name__)
opt_sd = optimizer.state_dict()
opt_sd["param_groups"][0]["lr"] = 0.05
optimizer.load_state_dict(opt_sd)
print("lr", optimizer.param_groups[0]["lr"], optimizer.param_groups[0]["initial_lr"] if "initial_lr" in
      optimizer.param_groups[0] else None)
try:
    optim.SGD(netA.parameters(), lr=0.1).load_state_dict(optimizer.state_dict())
except ValueError as e:
    print("ValueError:", e)
