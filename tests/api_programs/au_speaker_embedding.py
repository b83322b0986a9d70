"""Speaker verification code (x-vector/ECAPA style) in plain PyTorch: TDNN layers as dilated Conv1d with
BatchNorm1d, squeeze-excitation, masked attentive statistics pooling over variable lengths, an additive angular
margin (AAM) softmax head, cosine scoring, and EER/minDCF from sorted scores with cumsum."""

import math

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4, sci_mode=False)
N_MELS, N_SPK = 12, 4


class SE(nn.Module):
    def __init__(self, ch, r=4):
        super().__init__()
        self.fc1, self.fc2 = nn.Conv1d(ch, ch // r, 1), nn.Conv1d(ch // r, ch, 1)

    def forward(self, x, mask):
        s = (x * mask).sum(-1, keepdim=True) / mask.sum(-1, keepdim=True)
        return x * torch.sigmoid(self.fc2(F.relu(self.fc1(s))))


class TDNN(nn.Module):
    def __init__(self, cin, cout, k, d):
        super().__init__()
        self.conv = nn.Conv1d(cin, cout, k, dilation=d, padding="same")
        self.bn = nn.BatchNorm1d(cout)

    def forward(self, x):
        return self.bn(F.relu(self.conv(x)))


class AttentiveStatsPool(nn.Module):
    def __init__(self, ch, att=8):
        super().__init__()
        self.att = nn.Sequential(nn.Conv1d(ch, att, 1), nn.Tanh(), nn.Conv1d(att, ch, 1))

    def forward(self, x, mask):
        scores = self.att(x).masked_fill(mask == 0, float("-inf"))
        w = torch.softmax(scores, dim=-1)
        mu = (w * x).sum(-1)
        var = (w * x * x).sum(-1) - mu * mu
        return torch.cat([mu, var.clamp(min=1e-5).sqrt()], dim=1)


class XVector(nn.Module):
    def __init__(self, ch=16, emb=8):
        super().__init__()
        self.layers = nn.ModuleList([TDNN(N_MELS, ch, 5, 1), TDNN(ch, ch, 3, 2), TDNN(ch, ch, 3, 3)])
        self.se = SE(ch)
        self.pool = AttentiveStatsPool(ch)
        self.bn = nn.BatchNorm1d(2 * ch)
        self.fc = nn.Linear(2 * ch, emb)

    def forward(self, feats, lengths):
        mask = (torch.arange(feats.shape[-1])[None, :] < lengths[:, None]).unsqueeze(1).float()
        x = feats
        for layer in self.layers:
            x = layer(x)
        x = self.se(x, mask)
        return self.fc(self.bn(self.pool(x, mask)))


class AAMSoftmax(nn.Module):
    def __init__(self, emb, n_cls, m=0.2, s=30.0):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(n_cls, emb))
        nn.init.xavier_normal_(self.weight, gain=1)
        self.m, self.s = m, s
        self.cos_m, self.sin_m = math.cos(m), math.sin(m)
        self.th, self.mm = math.cos(math.pi - m), math.sin(math.pi - m) * m

    def forward(self, x, label):
        cosine = F.linear(F.normalize(x), F.normalize(self.weight))
        sine = torch.sqrt((1.0 - cosine * cosine).clamp(0, 1))
        phi = cosine * self.cos_m - sine * self.sin_m
        phi = torch.where(cosine - self.th > 0, phi, cosine - self.mm)
        one_hot = F.one_hot(label, cosine.shape[1]).to(cosine.dtype)
        logits = self.s * (one_hot * phi + (1 - one_hot) * cosine)
        return F.cross_entropy(logits, label), logits


centers = torch.randn(N_SPK, N_MELS, 1) * 1.5
labels = torch.arange(N_SPK).repeat_interleave(3)
lengths = torch.randint(20, 41, (labels.numel(),))
feats = centers[labels] + 0.8 * torch.randn(labels.numel(), N_MELS, 40)
print("batch", tuple(feats.shape), "lengths", lengths.tolist())

model, head = XVector(), AAMSoftmax(8, N_SPK)
print(model.layers[1].conv, model.pool.att[0].weight.shape, model.bn)
print("params", sum(p.numel() for p in model.parameters()), sum(p.numel() for p in head.parameters()))
emb = model(feats, lengths)
print("embeddings", tuple(emb.shape), emb[0, :4])
print("bn running_mean after one pass", model.bn.running_mean[:4], model.bn.num_batches_tracked.item())

opt = torch.optim.Adam(list(model.parameters()) + list(head.parameters()), lr=5e-3, weight_decay=1e-5)
for step in range(25):
    loss, logits = head(model(feats, lengths), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 8 == 0:
        print("step", step, round(loss.item(), 4), "acc", (logits.argmax(1) == labels).float().mean().item())

model.eval()
with torch.no_grad():
    torch.manual_seed(5)
    test_feats = centers[labels] + 0.8 * torch.randn(labels.numel(), N_MELS, 40)
    e = F.normalize(model(test_feats, lengths))
    e_short = F.normalize(model(test_feats[..., :20], torch.full_like(lengths, 20)))
print("eval embedding", e[0, :4], "norm", round(e[0].norm().item(), 4))
print("short vs full cos", [round(v, 4) for v in F.cosine_similarity(e, e_short)[:4].tolist()])

scores = e @ e.t()
iu = torch.triu_indices(len(labels), len(labels), offset=1)
trial_scores = scores[iu[0], iu[1]]
target = (labels[iu[0]] == labels[iu[1]])
print("trials", trial_scores.numel(), "targets", target.sum().item(),
      "mean target/nontarget", round(trial_scores[target].mean().item(), 4),
      round(trial_scores[~target].mean().item(), 4))

order = torch.argsort(trial_scores, descending=True, stable=True)
tgt_sorted = target[order].float()
tp = torch.cumsum(tgt_sorted, 0)
fp = torch.cumsum(1 - tgt_sorted, 0)
fnr = 1 - tp / target.sum()
fpr = fp / (~target).sum()
i = torch.argmin((fnr - fpr).abs())
print("EER", round(((fnr[i] + fpr[i]) / 2).item(), 4), "at score", round(trial_scores[order][i].item(), 4))
dcf = 0.01 * fnr + 0.99 * fpr
print("minDCF", round((dcf.min() / min(0.01, 0.99)).item(), 4))
print("cdist check", torch.allclose(torch.cdist(e, e).pow(2), 2 - 2 * scores, atol=1e-4))
