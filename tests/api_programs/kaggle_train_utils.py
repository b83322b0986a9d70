"""The utility cell every Kaggle notebook carries: seed_everything and a seed_worker for DataLoader, an AverageMeter,
a weight-init function through Module.apply, no-decay parameter groups and layer-wise LR decay for a small
Transformer encoder, a warmup+cosine LambdaLR, freezing BatchNorm, a CFG class, and a parameter count summary."""

import math
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


class CFG:
    seed = 42
    lr = 1e-3
    epochs = 2
    batch_size = 4
    warmup_ratio = 0.25
    llrd = 0.8
    weight_decay = 0.01


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    np.random.seed(worker_seed)
    random.seed(worker_seed)


class AverageMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


seed_everything(CFG.seed)
print("seeded initial_seed", torch.initial_seed())
rng = np.random.default_rng(CFG.seed)


class Encoder(nn.Module):
    def __init__(self, vocab=20, d=8, n_layers=3, n_cls=3):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList([nn.TransformerEncoderLayer(d, 2, 16, dropout=0.0, batch_first=True)
                                     for _ in range(n_layers)])
        self.norm = nn.LayerNorm(d)
        self.fc = nn.Linear(d, n_cls)

    def forward(self, ids, mask):
        x = self.embeddings(ids)
        for layer in self.layers:
            x = layer(x, src_key_padding_mask=~mask)
        x = self.norm(x)
        m = mask.unsqueeze(-1).float()
        return self.fc((x * m).sum(1) / m.sum(1).clamp(min=1e-9))


def init_weights(m):
    if isinstance(m, nn.Linear):
        with torch.no_grad():
            m.weight.copy_(torch.from_numpy((0.2 * rng.standard_normal(tuple(m.weight.shape))).astype(np.float32)))
            if m.bias is not None:
                nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Embedding):
        with torch.no_grad():
            m.weight.copy_(torch.from_numpy((0.5 * rng.standard_normal(tuple(m.weight.shape))).astype(np.float32)))
    elif isinstance(m, nn.LayerNorm):
        nn.init.ones_(m.weight)
        nn.init.zeros_(m.bias)


model = Encoder()
ret = model.apply(init_weights)
print("apply returns self", ret is model)
total = sum(p.numel() for p in model.parameters())
trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
print(f"params total {total:,} trainable {trainable:,}")
for name, mod in list(model.named_children()):
    print(f"  {name:<10} {type(mod).__name__:<12} {sum(p.numel() for p in mod.parameters()):>5}")


def llrd_groups(model, lr, decay, wd):
    no_decay = ("bias", "norm", "LayerNorm.weight")
    groups = []
    layers = [model.embeddings] + list(model.layers)
    for depth, layer in enumerate(reversed(layers)):
        layer_lr = lr * decay ** (depth + 1)
        for nd, wdv in ((False, wd), (True, 0.0)):
            ps = [p for n, p in layer.named_parameters() if any(k in n for k in no_decay) == nd]
            if ps:
                groups.append({"params": ps, "lr": layer_lr, "weight_decay": wdv})
    groups.append({"params": list(model.norm.parameters()) + list(model.fc.parameters()), "lr": lr,
                   "weight_decay": 0.0})
    return groups


groups = llrd_groups(model, CFG.lr, CFG.llrd, CFG.weight_decay)
opt = torch.optim.AdamW(groups, lr=CFG.lr)
print("groups", len(opt.param_groups), [round(g["lr"], 6) for g in opt.param_groups])
print("wd", [g["weight_decay"] for g in opt.param_groups], "sizes", [len(g["params"]) for g in opt.param_groups])
n_in_groups = sum(len(g["params"]) for g in opt.param_groups)
print("all params covered", n_in_groups == len(list(model.parameters())))

ids = torch.from_numpy(rng.integers(1, 20, (12, 6)))
lens = torch.from_numpy(rng.integers(2, 7, 12))
mask = torch.arange(6).unsqueeze(0) < lens.unsqueeze(1)
ids = ids.masked_fill(~mask, 0)
y = torch.from_numpy(rng.integers(0, 3, 12))
g = torch.Generator()
g.manual_seed(0)
dl = DataLoader(TensorDataset(ids, mask, y), batch_size=CFG.batch_size, shuffle=True, worker_init_fn=seed_worker,
                generator=g, num_workers=0)
steps = CFG.epochs * len(dl)
warm = int(CFG.warmup_ratio * steps)


def warmup_cosine(step):
    if step < warm:
        return float(step) / float(max(1, warm))
    progress = float(step - warm) / float(max(1, steps - warm))
    return max(0.0, 0.5 * (1.0 + math.cos(math.pi * progress)))


sched = torch.optim.lr_scheduler.LambdaLR(opt, warmup_cosine)
print("steps", steps, "warmup", warm, "initial lrs", [round(v, 6) for v in sched.get_last_lr()[-2:]])
meter = AverageMeter()
head_lrs = []
for ep in range(CFG.epochs):
    model.train()
    meter.reset()
    for bi, (xb, mb, yb) in enumerate(dl):
        loss = F.cross_entropy(model(xb, mb), yb)
        opt.zero_grad()
        loss.backward()
        gn = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1000.0)
        opt.step()
        sched.step()
        meter.update(loss.item(), xb.size(0))
        head_lrs.append(round(sched.get_last_lr()[-1], 7))
    print(f"epoch {ep} batches {bi + 1} meter count {meter.count} finite {math.isfinite(meter.avg)}")
print("head lrs", head_lrs)
print("embedding initial_lr / head", round(opt.param_groups[-2]["initial_lr"] / opt.param_groups[-1]["initial_lr"], 4))

model.eval()
xb, mb = ids[:4], mask[:4]
with torch.no_grad():
    out_full = model(xb, mb)
model.fc.weight.requires_grad_(False)
print("frozen fc trainable now", sum(p.numel() for p in model.parameters() if p.requires_grad))


def freeze_bn(m):
    if isinstance(m, nn.modules.batchnorm._BatchNorm):
        m.eval()
        for p in m.parameters():
            p.requires_grad = False


cnn = nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.ReLU())
cnn.train()
cnn.apply(freeze_bn)
print("bn training", cnn[1].training, "conv training", cnn[0].training, "bn grad", cnn[1].weight.requires_grad)
print("out", tuple(out_full.shape),
      "row sums of softmax", np.round(out_full.softmax(-1).sum(-1).double().numpy(), 4).tolist())
try:
    torch.optim.AdamW([{"params": model.fc.parameters()}, {"params": [model.fc.bias]}])
except ValueError as e:
    print("ValueError", e)
try:
    torch.optim.lr_scheduler.LambdaLR(opt, [warmup_cosine])
except ValueError as e:
    print("ValueError", e)
