"""Zero-shot classification as CLIP's notebooks do it: every class name through several prompt templates, each
template's embedding normalized, averaged over templates and normalized again, logits = 100 * image @ weights,
softmax probabilities, top-k predictions with torch.topk, top-1/top-5 accuracy and per-class accuracy."""

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)

classnames = ["cat", "dog", "car", "tree", "ship", "bird", "plane"]
templates = ["a photo of a {}.", "a blurry photo of a {}.", "a drawing of a {}.", "itap of a {}."]
D = 12


def fake_tokenize(texts, ctx=32):
    """Deterministic 'tokenizer': character codes mod 97, padded, with the EOT at the end."""
    out = torch.zeros(len(texts), ctx, dtype=torch.int64)
    for i, t in enumerate(texts):
        ids = [ord(c) % 97 for c in t][: ctx - 1] + [99]
        out[i, : len(ids)] = torch.tensor(ids)
    return out


class TinyText(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(100, D, mode="mean", padding_idx=0)
        self.proj = nn.Linear(D, D, bias=False)

    def forward(self, tokens):
        return self.proj(self.emb(tokens))


text_model = TinyText().eval()
image_encoder = nn.Sequential(nn.Flatten(), nn.Linear(3 * 4 * 4, D)).eval()


@torch.no_grad()
def zeroshot_classifier(names, temps):
    weights = []
    for name in names:
        texts = [t.format(name) for t in temps]
        tok = fake_tokenize(texts)
        emb = text_model(tok)
        emb = emb / emb.norm(dim=-1, keepdim=True)
        emb = emb.mean(dim=0)
        emb /= emb.norm()
        weights.append(emb)
    return torch.stack(weights, dim=1)


zs_weights = zeroshot_classifier(classnames, templates)
print("weights", tuple(zs_weights.shape), zs_weights.requires_grad, zs_weights.norm(dim=0).round(decimals=4).tolist())
print("tokens", fake_tokenize(["a cat"])[:, :8].tolist())

# vectorised version: all prompts at once, then view + mean
all_tok = fake_tokenize([t.format(c) for c in classnames for t in templates])
with torch.no_grad():
    e = F.normalize(text_model(all_tok), dim=-1).view(len(classnames), len(templates), D).mean(1)
    e = F.normalize(e, dim=-1).T
print("vectorised == loop", torch.allclose(e, zs_weights, atol=1e-6))

images = torch.randn(20, 3, 4, 4)
labels = torch.randint(0, len(classnames), (20,))
with torch.no_grad():
    feats = F.normalize(image_encoder(images), dim=-1)
    logits = 100.0 * feats @ zs_weights
probs = logits.softmax(dim=-1)
print("probs sum", probs.sum(-1).round(decimals=4).unique().tolist())
values, indices = probs[0].topk(5)
print("top5 of image 0", [classnames[i] for i in indices.tolist()], values.round(decimals=4).tolist())
print(
    "topk largest=False",
    logits[0].topk(2, largest=False).indices.tolist(),
    "sorted",
    logits[0].topk(3, sorted=True).values.round(decimals=4).tolist(),
)


def accuracy(output, target, topk=(1,)):
    pred = output.topk(max(topk), 1, True, True)[1].t()
    correct = pred.eq(target.view(1, -1).expand_as(pred))
    return [correct[:k].reshape(-1).float().sum(0, keepdim=True).mul_(100.0 / target.size(0)).item() for k in topk]


top1, top5 = accuracy(logits, labels, topk=(1, 5))
print("top1", top1, "top5", top5, "n", labels.numel())
pred = logits.argmax(dim=-1)
cm = torch.bincount(labels * len(classnames) + pred, minlength=len(classnames) ** 2).reshape(len(classnames), -1)
print("confusion diag", cm.diag().tolist(), "per class n", cm.sum(1).tolist())
per_class = cm.diag().float() / cm.sum(1).clamp(min=1).float()
print("per-class acc", per_class.round(decimals=4).tolist(), "mean", round(per_class.mean().item(), 4))
print("balanced nan-aware", round(torch.nanmean(cm.diag().float() / cm.sum(1).float()).item(), 4))

# ensembling the probabilities of two 'prompt sets' vs averaging embeddings
w1 = zeroshot_classifier(classnames, templates[:2])
w2 = zeroshot_classifier(classnames, templates[2:])
p_ens = ((100 * feats @ w1).softmax(-1) + (100 * feats @ w2).softmax(-1)) / 2
print("ensemble agree", (p_ens.argmax(-1) == pred).sum().item(), round(p_ens.max(-1).values.mean().item(), 4))
print(
    "entropy",
    round(torch.special.entr(probs).sum(-1).mean().item(), 4),
    round(-(probs * probs.clamp_min(1e-12).log()).sum(-1).mean().item(), 4),
)

try:
    logits.topk(8)
except Exception as e:
    print(type(e).__name__, e)
try:
    text_model(torch.tensor([[100, 1]]))
except Exception as e:
    print(type(e).__name__, e)
try:
    torch.bincount(torch.tensor([-1, 2]))
except Exception as e:
    print(type(e).__name__, e)
