"""FedAvg on a small CNN with BatchNorm: clients as deepcopies of the global model, client sampling with a
seeded torch.Generator, state_dict averaging weighted by client sizes (the int64 num_batches_tracked included),
and the global model reloaded with load_state_dict each round."""

import copy

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4 * 4 * 4, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.conv(x))), 2)
        return self.fc(x.flatten(1))


n_clients = 6
sizes = [12, 8, 20, 4, 16, 10]
data = []
for k, n in enumerate(sizes):
    x = torch.randn(n, 1, 8, 8) + 0.1 * k
    y = torch.arange(n) % 3
    data.append((x, y))

global_model = Net()
print("keys", list(global_model.state_dict().keys()))
print("dtypes", {k: str(v.dtype) for k, v in global_model.state_dict().items() if v.dtype != torch.float32})


def local_train(model, x, y, epochs=2, bs=4):
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    model.train()
    for _ in range(epochs):
        for i in range(0, len(x), bs):
            opt.zero_grad()
            loss = F.cross_entropy(model(x[i:i + bs]), y[i:i + bs])
            loss.backward()
            opt.step()
    return loss.item()


def fedavg(states, weights):
    total = sum(weights)
    out = {}
    for key in states[0]:
        ref = states[0][key]
        if ref.dtype in (torch.int64, torch.long):
            acc = sum(s[key] * w for s, w in zip(states, weights))
            out[key] = torch.div(acc, total, rounding_mode="floor").to(ref.dtype)
        else:
            out[key] = torch.stack([s[key] * (w / total) for s, w in zip(states, weights)]).sum(0)
    return out


gen = torch.Generator().manual_seed(42)
for rnd in range(3):
    chosen = torch.randperm(n_clients, generator=gen)[:3].sort().values.tolist()
    states, weights, losses = [], [], []
    for k in chosen:
        local = copy.deepcopy(global_model)
        assert local.fc.weight.data_ptr() != global_model.fc.weight.data_ptr()
        losses.append(round(local_train(local, *data[k]), 4))
        states.append({k2: v.detach().clone() for k2, v in local.state_dict().items()})
        weights.append(sizes[k])
    new_state = fedavg(states, weights)
    print("round", rnd, "clients", chosen, "losses", losses)
    print("  nbt", [int(s["bn.num_batches_tracked"]) for s in states], int(new_state["bn.num_batches_tracked"]),
          new_state["bn.num_batches_tracked"].dtype)
    result = global_model.load_state_dict(new_state)
    print("  load", result)
    print("  running_mean", global_model.bn.running_mean.round(decimals=4).tolist())
    print("  fc.bias", global_model.fc.bias.detach().round(decimals=4).tolist())

# parameter-vector view of the same averaging
vecs = [nn.utils.parameters_to_vector(Net().parameters()) for _ in range(2)]
print("vec", vecs[0].shape, vecs[0].dtype)
w = torch.tensor([0.25, 0.75])
avg_vec = (torch.stack(vecs) * w[:, None]).sum(0)
target = Net()
nn.utils.vector_to_parameters(avg_vec, target.parameters())
print("vec_to_params", round(target.conv.weight.sum().item(), 4), round(avg_vec.sum().item(), 4))

global_model.eval()
with torch.no_grad():
    xs = torch.cat([d[0] for d in data])
    ys = torch.cat([d[1] for d in data])
    logits = global_model(xs)
    acc = (logits.argmax(1) == ys).float().mean()
print("global acc", round(acc.item(), 4), "loss", round(F.cross_entropy(logits, ys).item(), 4))

try:
    global_model.load_state_dict({k: v for k, v in new_state.items() if "bn" not in k})
except Exception as e:
    print(type(e).__name__, e)
try:
    bad = dict(new_state)
    bad["fc.weight"] = bad["fc.weight"].t()
    global_model.load_state_dict(bad)
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.randperm(4, generator=torch.Generator(), dtype=torch.float16, device="meta").tolist()
except Exception as e:
    print(type(e).__name__, e)
