"""PyTorch recipes as typed in: 'Defining a Neural Network' (Dropout2d, F.max_pool2d, flatten, log_softmax),
'Zeroing out gradients', 'Reasoning about Shapes' (meta-device tensors and modules, a forward hook printing each
layer's output shape), 'Tips for loading an nn.Module from a checkpoint' (torch.device('meta') construction,
mmap=True, load_state_dict(assign=True)), 'Changing default device', and the warmstarting recipe."""

import io
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

rng = np.random.default_rng(0)


def det(m, scale=0.1):
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.from_numpy(rng.standard_normal(tuple(p.shape)).astype(np.float32)) * scale)
    return m


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()  # noqa: UP008 (as the recipe types it)
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


my_nn = det(Net(), 0.05)
print(my_nn)
random_data = torch.from_numpy(rng.random((1, 1, 28, 28)).astype(np.float32))
my_nn.eval()
result = my_nn(random_data)
print(result.shape, round(result.exp().sum().item(), 4), result.grad_fn.name())
print(np.round(result.detach().numpy().astype(np.float64), 4).tolist())
my_nn.train()
torch.manual_seed(0)
r1 = my_nn(random_data)
torch.manual_seed(0)
r2 = my_nn(random_data)
print("train-mode dropout reproducible", torch.equal(r1, r2), my_nn.dropout1, my_nn.dropout1.training)

# zeroing out gradients
net = det(nn.Sequential(nn.Linear(12, 8), nn.ReLU(), nn.Linear(8, 3)))
criterion = nn.CrossEntropyLoss()
optimizer = optim.SGD(net.parameters(), lr=0.001, momentum=0.9)
inputs = torch.from_numpy(rng.standard_normal((20, 12)).astype(np.float32))
labels = torch.from_numpy(rng.integers(0, 3, 20))
for epoch in range(2):
    running_loss = 0.0
    for i in range(0, 20, 4):
        optimizer.zero_grad()
        outputs = net(inputs[i:i + 4])
        loss = criterion(outputs, labels[i:i + 4])
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
    print(f"[{epoch + 1}] loss: {running_loss / 5:.3f}")
print("grad after zero_grad", net[0].weight.grad is not None)
optimizer.zero_grad()
print("set_to_none default", net[0].weight.grad)
net(inputs).sum().backward()
g1 = net[0].weight.grad.clone()
net(inputs).sum().backward()
print("accumulates", torch.allclose(net[0].weight.grad, 2 * g1))
net.zero_grad(set_to_none=False)
print("zeros kept", net[0].weight.grad.abs().sum().item(), net[0].weight.grad.shape)

# reasoning about shapes with the meta device
a = torch.ones(2, 3, 10, 10, device="meta")
conv = torch.nn.Conv2d(3, 5, 2, device="meta")
out = conv(a)
print(out, out.is_meta, out.device)
print(conv.weight.device, conv.weight.is_meta, conv.weight.shape)
try:
    out.item()
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])


def fw_hook(module, input, output):
    print(f"Shape of output to {module} is {output.shape}.")


with torch.device("meta"):
    net = nn.Sequential(nn.Conv2d(3, 6, 5), nn.ReLU(), nn.MaxPool2d(2, 2), nn.Conv2d(6, 16, 5), nn.ReLU(),
                        nn.MaxPool2d(2, 2), nn.Flatten(), nn.Linear(16 * 5 * 5, 120), nn.ReLU(), nn.Linear(120, 10))
    inp = torch.randn((1024, 3, 32, 32))
handles = [m.register_forward_hook(fw_hook) for m in net]
out = net(inp)
for h in handles:
    h.remove()
print("hooks removed", len(net[0]._forward_hooks), out.shape)

# loading from a checkpoint with meta-device construction and assign=True
src = det(nn.Sequential(nn.Linear(6, 4), nn.LayerNorm(4), nn.Linear(4, 2)))
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "checkpoint.pth")
    torch.save(src.state_dict(), path)
    state_dict = torch.load(path, mmap=True, weights_only=True)
    with torch.device("meta"):
        meta_m = nn.Sequential(nn.Linear(6, 4), nn.LayerNorm(4), nn.Linear(4, 2))
    print("meta params", meta_m[0].weight.device, meta_m[1].weight.is_meta)
    res = meta_m.load_state_dict(state_dict, assign=True)
    print(res, meta_m[0].weight.device, type(meta_m[0].weight).__name__, meta_m[0].weight.requires_grad)
    x = torch.from_numpy(rng.standard_normal((3, 6)).astype(np.float32))
    print("same", torch.equal(meta_m(x), src(x)), meta_m[0].weight.is_leaf)
    with torch.device("meta"):
        meta2 = nn.Sequential(nn.Linear(6, 4), nn.LayerNorm(4), nn.Linear(4, 2))
    meta2.load_state_dict(state_dict)
    print("no assign stays meta", meta2[0].weight.is_meta)
    m3 = meta2.to_empty(device="cpu")
    print("to_empty", m3[0].weight.device, m3[0].weight.shape, m3 is meta2)

# changing the default device
torch.set_default_device("meta")
t = torch.ones(2)
lin = nn.Linear(2, 2)
torch.set_default_device("cpu")
print("default device", t.device, lin.weight.device, torch.ones(1).device, torch.get_default_device())
with torch.device("meta"):
    print("context", torch.zeros(3).device, torch.get_default_device())
print("after", torch.get_default_device(), torch.tensor([1.0]).device)

# warmstarting: partial load with strict=False
net_a = det(nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)))
buf = io.BytesIO()
torch.save(net_a.state_dict(), buf)
buf.seek(0)
net_b = nn.Sequential(nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3), nn.Softmax(dim=1), nn.Linear(3, 2))
res = net_b.load_state_dict(torch.load(buf, weights_only=True), strict=False)
print(res.missing_keys, res.unexpected_keys, torch.equal(net_b[2].bias, net_a[2].bias))
