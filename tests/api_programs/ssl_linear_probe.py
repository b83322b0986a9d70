"""Linear evaluation of a pre-trained encoder as MAE/MoCo v3 do it: a frozen backbone (requires_grad_(False),
eval(), inference_mode feature extraction), a head of BatchNorm1d(affine=False, eps=1e-6) + Linear initialised by
trunc_normal_ with zeroed bias, SGD with nesterov over the head only, a DataLoader with drop_last, the check
that the backbone did not move, SyncBatchNorm conversion of the encoder, top-k accuracy, and checkpoints with an
argparse Namespace that weights_only loading refuses until the class is allow-listed."""

import argparse
import io

import torch

nn = torch.nn
F = torch.nn.functional
from torch.utils.data import DataLoader, TensorDataset  # noqa: E402

torch.manual_seed(0)

backbone = nn.Sequential(nn.Linear(10, 16), nn.BatchNorm1d(16), nn.ReLU(), nn.Linear(16, 8))
head = nn.Sequential(nn.BatchNorm1d(8, affine=False, eps=1e-6), nn.Linear(8, 3))
nn.init.trunc_normal_(head[1].weight, std=0.01)
nn.init.zeros_(head[1].bias)
print(head)
backbone.requires_grad_(False)
backbone.eval()
print("frozen", [p.requires_grad for p in backbone.parameters()][:2], backbone.training, head.training)
snapshot = {k: v.clone() for k, v in backbone.state_dict().items()}

X = torch.randn(50, 10)
Y = (X[:, 0] > 0).long() + (X[:, 1] > 0.5).long()
loader = DataLoader(
    TensorDataset(X, Y), batch_size=16, shuffle=True, drop_last=True, generator=torch.Generator().manual_seed(1)
)
print("loader", len(loader), len(loader.dataset))
opt = torch.optim.SGD(head.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.0)
for epoch in range(3):
    total, correct, seen = 0.0, 0, 0
    for xb, yb in loader:
        with torch.inference_mode():
            feats = backbone(xb)
        feats = feats.clone()
        logits = head(feats)
        loss = F.cross_entropy(logits, yb)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        total += loss.item() * xb.shape[0]
        correct += (logits.argmax(1) == yb).sum().item()
        seen += xb.shape[0]
    print("epoch", epoch, seen, round(total / seen, 4), correct)
print(
    "unchanged",
    all(torch.equal(snapshot[k], v) for k, v in backbone.state_dict().items()),
    backbone[1].num_batches_tracked.item(),
    head[0].num_batches_tracked.item(),
)


def accuracy(output, target, topk=(1,)):
    maxk = max(topk)
    batch_size = target.size(0)
    _, pred = output.topk(maxk, 1, True, True)
    pred = pred.t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    return [correct[:k].reshape(-1).float().sum(0) * 100.0 / batch_size for k in topk]


head.eval()
with torch.no_grad():
    out = head(backbone(X))
acc1, acc2 = accuracy(out, Y, topk=(1, 2))
print("acc", round(acc1.item(), 4), round(acc2.item(), 4), acc1.shape)

try:
    with torch.inference_mode():
        f = backbone(X)
    head.train()
    head(f).sum().backward()
except Exception as e:
    print(type(e).__name__, e)

sync = nn.SyncBatchNorm.convert_sync_batchnorm(backbone)
print(
    type(sync[1]).__name__,
    sync[1].num_features,
    sync[1].eps,
    sync[1].weight.requires_grad,
    torch.equal(sync[1].running_mean, snapshot["1.running_mean"]),
)
print(sync[1])

# checkpoints with args: weights_only refuses a Namespace until it is allow-listed
args = argparse.Namespace(arch="mlp", lr=0.1, epochs=3)
buf = io.BytesIO()
torch.save({"epoch": 3, "state_dict": head.state_dict(), "optimizer": opt.state_dict(), "args": args}, buf)
buf.seek(0)
try:
    torch.load(buf, weights_only=True)
except Exception as e:
    print(type(e).__name__, "Unsupported global: GLOBAL argparse.Namespace" in str(e))
buf.seek(0)
with torch.serialization.safe_globals([argparse.Namespace]):
    ck = torch.load(buf, weights_only=True)
print("loaded", ck["epoch"], ck["args"].lr, sorted(ck["state_dict"]), ck["optimizer"]["param_groups"][0]["nesterov"])
buf.seek(0)
ck2 = torch.load(buf, weights_only=False)
msg = head.load_state_dict({k.replace("1.", "fc."): v for k, v in ck2["state_dict"].items()}, strict=False)
print("strict=False", msg.missing_keys, msg.unexpected_keys)
try:
    torch.optim.SGD(head.parameters(), lr=0.1, nesterov=True)
except Exception as e:
    print(type(e).__name__, e)
