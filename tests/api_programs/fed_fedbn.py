"""FedBN: every client keeps its own BatchNorm statistics and affine parameters while the rest of the network is
averaged; state_dict keys are filtered by module type, running statistics compared across clients, and
strict=False loading reports exactly the skipped keys."""

import copy

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def make_model():
    return nn.Sequential(
        nn.Linear(6, 8, bias=False), nn.BatchNorm1d(8), nn.ReLU(),
        nn.Linear(8, 8, bias=False), nn.BatchNorm1d(8, momentum=None), nn.ReLU(),
        nn.Linear(8, 2),
    )


server = make_model()
bn_keys = {f"{name}.{k}" for name, m in server.named_modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)
           for k in m.state_dict().keys()}
print("bn keys", sorted(bn_keys))
shared_keys = [k for k in server.state_dict() if k not in bn_keys]
print("shared", shared_keys)

clients = []
for k in range(3):
    x = torch.randn(24, 6) * (k + 1) + 2.0 * k
    y = (x[:, 0] > x[:, 1]).long()
    clients.append((copy.deepcopy(server), x, y))

for rnd in range(3):
    for model, x, y in clients:
        opt = torch.optim.Adam(model.parameters(), lr=0.01)
        model.train()
        for i in range(0, 24, 8):
            opt.zero_grad()
            F.cross_entropy(model(x[i:i + 8]), y[i:i + 8]).backward()
            opt.step()
    avg = {k: torch.stack([m.state_dict()[k].float() for m, _, _ in clients]).mean(0) for k in shared_keys}
    for model, _, _ in clients:
        res = model.load_state_dict(avg, strict=False)
    print("round", rnd, "missing", len(res.missing_keys), "unexpected", res.unexpected_keys)

print("missing keys", res.missing_keys)
for j, (model, x, y) in enumerate(clients):
    bn = model[1]
    print("client", j, "mean", bn.running_mean[:3].round(decimals=4).tolist(),
          "var", bn.running_var[:3].round(decimals=4).tolist(), "nbt", bn.num_batches_tracked.item())
    bn2 = model[4]
    print("  cumulative", bn2.momentum, bn2.running_mean[:3].round(decimals=4).tolist(), bn2.num_batches_tracked.item())
    model.eval()
    with torch.no_grad():
        acc = (model(x).argmax(1) == y).float().mean().item()
    print("  acc", round(acc, 4), "weight0", round(model[0].weight.sum().item(), 4))

same = all(torch.equal(clients[0][0].state_dict()[k], clients[1][0].state_dict()[k]) for k in shared_keys)
diff = [k for k in bn_keys if not torch.equal(clients[0][0].state_dict()[k], clients[1][0].state_dict()[k])]
print("shared equal", same, "bn differ", sorted(diff))

server.load_state_dict({k: v for k, v in clients[0][0].state_dict().items()})
server.eval()
print("bn repr", server[1], server[4])
print("training flags", [m.training for m in server.modules()][:3])
fresh = make_model()
fresh[1].reset_running_stats()
print("reset", fresh[1].running_var[:2].tolist(), fresh[1].num_batches_tracked)
try:
    make_model().train()(torch.randn(1, 6))
except Exception as e:
    print(type(e).__name__, e)
try:
    server.load_state_dict({"1.running_mean": torch.zeros(5)}, strict=False)
except Exception as e:
    print(type(e).__name__, e)
