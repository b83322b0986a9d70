"""A Kaggle tabular notebook: categorical embeddings + continuous features, a seed_everything helper, k-fold CV with
a fresh model per fold, BCEWithLogits with pos_weight, early stopping on a torch-computed AUC, the best checkpoint
kept in a BytesIO, out-of-fold predictions and a fold-averaged test prediction written as a CSV string."""

import io
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset


def seed_everything(seed=42):
    random.seed(seed)
    os.environ["PYTHONHASHSEED"] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


seed_everything(2024)
print("cudnn flags", torch.backends.cudnn.deterministic, torch.backends.cudnn.benchmark)
rng = np.random.default_rng(0)
N, NT = 120, 20
cards = [5, 7, 3]
cat = np.stack([rng.integers(0, c, N + NT) for c in cards], 1)
cont = rng.standard_normal((N + NT, 4)).astype(np.float32)
logit = cont[:, 0] - 0.5 * cont[:, 1] + (cat[:, 0] == 2) * 1.5 - 1.0
target = (logit + 0.3 * rng.standard_normal(N + NT) > 0).astype(np.float32)
Xc, Xn, y = torch.from_numpy(cat[:N]), torch.from_numpy(cont[:N]), torch.from_numpy(target[:N])
Tc, Tn = torch.from_numpy(cat[N:]), torch.from_numpy(cont[N:])
print("data", Xc.dtype, Xn.dtype, y.dtype, tuple(Xc.shape), "pos rate", round(y.mean().item(), 4))


class TabNet(nn.Module):
    def __init__(self, cards, n_cont, hidden=16):
        super().__init__()
        self.embs = nn.ModuleList([nn.Embedding(c, min(4, (c + 1) // 2)) for c in cards])
        n_emb = sum(e.embedding_dim for e in self.embs)
        self.bn = nn.BatchNorm1d(n_cont)
        self.emb_drop = nn.Dropout(0.0)
        self.mlp = nn.Sequential(nn.Linear(n_emb + n_cont, hidden), nn.SiLU(), nn.LayerNorm(hidden),
                                 nn.Linear(hidden, 1))

    def forward(self, xc, xn):
        e = torch.cat([emb(xc[:, i]) for i, emb in enumerate(self.embs)], dim=1)
        x = torch.cat([self.emb_drop(e), self.bn(xn)], dim=1)
        return self.mlp(x).squeeze(-1)


def init_det(model, seed):
    r = np.random.default_rng(seed)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if p.dim() > 1 or name.endswith("bias"):
                p.copy_(torch.from_numpy((0.3 * r.standard_normal(tuple(p.shape))).astype(np.float32)))


def auc_torch(scores, labels):
    order = torch.argsort(scores, descending=True)
    l = labels[order]
    tps = torch.cumsum(l, 0)
    fps = torch.cumsum(1 - l, 0)
    tpr = torch.cat([torch.zeros(1), tps / tps[-1]])
    fpr = torch.cat([torch.zeros(1), fps / fps[-1]])
    return torch.trapezoid(tpr, fpr).item()


m = TabNet(cards, 4)
print(m)
print("n params", sum(p.numel() for p in m.parameters() if p.requires_grad))

K = 4
fold_id = np.arange(N) % K
rng.shuffle(fold_id)
oof = torch.zeros(N)
test_pred = torch.zeros(NT)
pos_weight = (y == 0).sum() / (y == 1).sum()
print("pos_weight", round(pos_weight.item(), 4))
crit = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
fold_scores = []
for fold in range(K):
    tr = torch.from_numpy(np.where(fold_id != fold)[0])
    va = torch.from_numpy(np.where(fold_id == fold)[0])
    model = TabNet(cards, 4)
    init_det(model, fold)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-2, weight_decay=1e-2)
    dl = DataLoader(TensorDataset(Xc[tr], Xn[tr], y[tr]), batch_size=16, shuffle=False, drop_last=True)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-2, epochs=6, steps_per_epoch=len(dl))
    best, best_ep, patience, buf = -1.0, -1, 0, None
    for ep in range(6):
        model.train()
        tot = 0.0
        for bc, bn, by in dl:
            opt.zero_grad(set_to_none=True)
            loss = crit(model(bc, bn), by)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            sched.step()
            tot += loss.item() * len(by)
        model.eval()
        with torch.inference_mode():
            pv = torch.sigmoid(model(Xc[va], Xn[va]))
        score = auc_torch(pv, y[va])
        if score > best:
            best, best_ep, patience = score, ep, 0
            buf = io.BytesIO()
            torch.save(model.state_dict(), buf)
        else:
            patience += 1
            if patience >= 2:
                break
    buf.seek(0)
    state = torch.load(buf, weights_only=True)
    model.load_state_dict(state)
    model.eval()
    with torch.inference_mode():
        oof[va] = torch.sigmoid(model(Xc[va], Xn[va]))
        test_pred += torch.sigmoid(model(Tc, Tn)) / K
    fold_scores.append(best)
    print(f"fold {fold} n_tr {len(tr)} n_va {len(va)} steps {len(dl)} best_ep {best_ep} auc {best:.4f}",
          f"last_lr {sched.get_last_lr()[0]:.6f}")
print("state keys", list(state.keys())[:6])
print("bn running_mean", np.round(state["bn.running_mean"].double().numpy(), 4).tolist())
print("num_batches_tracked", state["bn.num_batches_tracked"])
print("cv auc mean", round(float(np.mean(fold_scores)), 4), "oof auc", round(auc_torch(oof, y), 4))
pred_lbl = (oof > 0.5).float()
tp = (pred_lbl * y).sum()
f1 = 2 * tp / (pred_lbl.sum() + y.sum())
print("oof f1", round(f1.item(), 4), "acc", round((pred_lbl == y).float().mean().item(), 4))
print("logloss", round(F.binary_cross_entropy(oof.clamp(1e-6, 1 - 1e-6), y).item(), 4))
lines = ["id,target"] + [f"{i},{p:.4f}" for i, p in enumerate(test_pred.tolist())]
csv = "\n".join(lines)
print(csv[:80])
print("csv rows", len(lines) - 1, "test mean", round(test_pred.mean().item(), 4))
try:
    m.embs[0](torch.tensor([[5]]))
except IndexError as e:
    print("IndexError", e)
try:
    crit(torch.zeros(3), torch.zeros(4))
except ValueError as e:
    print("ValueError", e)
