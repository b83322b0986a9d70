"""Mistakes CLIP code meets, with PyTorch's words: normalising integer features, in-place exp_ on the
logit_scale leaf, similarity of mismatched widths, labels of the wrong dtype or device-less shapes, one_hot with
too few classes, embeddings of negative ids, a causal mask of the wrong size, clamp with min > max, topk on an
empty dim, and the bfloat16 edge cases of the loss (logits in bfloat16, argmax ties)."""

import math

import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


def attempt(label, fn):
    try:
        out = fn()
        if isinstance(out, torch.Tensor):
            out = (tuple(out.shape), out.dtype, out.flatten()[:4].tolist())
        print(label, "->", out)
    except Exception as e:
        print(label, "!", type(e).__name__, e)


img = torch.randn(4, 8)
txt = torch.randn(4, 6)
scale = nn.Parameter(torch.tensor(math.log(1 / 0.07)))

attempt("normalize int", lambda: F.normalize(torch.arange(6).view(2, 3), dim=-1))
attempt("normalize p=1", lambda: F.normalize(torch.tensor([[3.0, -1.0]]), p=1, dim=1))
attempt("normalize zero row", lambda: F.normalize(torch.zeros(1, 3)))
attempt("normalize eps", lambda: F.normalize(torch.full((1, 2), 1e-8), eps=1e-6))
attempt("leaf exp_", lambda: scale.exp_())
attempt("matmul widths", lambda: img @ txt.T)
attempt("mm", lambda: torch.mm(img, txt))
attempt("labels float", lambda: F.cross_entropy(img @ img.T, torch.arange(4.0)))
attempt("labels int32", lambda: F.cross_entropy(img @ img.T, torch.arange(4, dtype=torch.int32)))
attempt("labels 2d", lambda: F.cross_entropy(img @ img.T, torch.arange(4).view(2, 2)))
attempt("labels out of range", lambda: F.cross_entropy(img @ img.T, torch.tensor([0, 1, 2, 4])))
attempt("one_hot small", lambda: F.one_hot(torch.tensor([0, 3]), num_classes=3))
attempt("one_hot float", lambda: F.one_hot(torch.tensor([0.0, 1.0])))
attempt("one_hot auto", lambda: F.one_hot(torch.tensor([2, 0])))
emb = nn.Embedding(10, 4)
attempt("embedding negative", lambda: emb(torch.tensor([-1])))
attempt(
    "embedding max_norm",
    lambda: nn.Embedding(3, 2, max_norm=1.0)(torch.tensor([0, 1])).norm(dim=-1).le(1.0001).all().item(),
)
attempt("from_pretrained", lambda: nn.Embedding.from_pretrained(torch.eye(3)).weight.requires_grad)
attempt("from_pretrained 1d", lambda: nn.Embedding.from_pretrained(torch.ones(3)))
attempt("clamp min>max", lambda: torch.tensor([1.0, 5.0]).clamp(min=3.0, max=2.0))
attempt("clamp none", lambda: torch.tensor([1.0]).clamp())
attempt(
    "clamp tensor bounds", lambda: torch.tensor([1.0, 5.0]).clamp(min=torch.tensor([2.0, 0.0]), max=torch.tensor(4.0))
)
attempt("topk empty", lambda: torch.empty(3, 0).topk(1, dim=1))
attempt("topk k=0", lambda: torch.randn(3, 4).topk(0))
attempt("topk int", lambda: torch.tensor([[3, 1, 2]]).topk(2))
attempt("argmax ties", lambda: torch.tensor([[1.0, 3.0, 3.0], [2.0, 2.0, 0.0]]).argmax(dim=1))
attempt("argmax bool", lambda: torch.tensor([False, True, True]).argmax())
attempt("argmax empty", lambda: torch.empty(0).argmax())
attempt(
    "mask size",
    lambda: F.scaled_dot_product_attention(
        torch.randn(1, 2, 4, 8),
        torch.randn(1, 2, 4, 8),
        torch.randn(1, 2, 4, 8),
        attn_mask=torch.ones(5, 5, dtype=torch.bool),
    ),
)
attempt(
    "causal+mask",
    lambda: F.scaled_dot_product_attention(
        torch.randn(2, 4, 8), torch.randn(2, 4, 8), torch.randn(2, 4, 8), attn_mask=torch.ones(4, 4), is_causal=True
    ),
)
attempt("bf16 ce", lambda: F.cross_entropy(torch.randn(4, 4).bfloat16(), torch.arange(4)))
attempt("bf16 logsigmoid", lambda: F.logsigmoid(torch.tensor([-3.0, 0.5]).bfloat16()))
attempt("bf16 normalize", lambda: F.normalize(torch.tensor([[3.0, 4.0]]).bfloat16()))
attempt("half softmax", lambda: torch.tensor([1.0, 2.0, 3.0]).half().softmax(0))
attempt("logit_scale item", lambda: round(scale.exp().item(), 4))
attempt("exp overflow", lambda: torch.tensor([100.0]).exp().clamp(max=100))
attempt("log of 0 scale", lambda: torch.tensor(0.0).log())
attempt("nan loss", lambda: F.cross_entropy(torch.tensor([[float("inf"), 0.0]]), torch.tensor([1])))
attempt("eye dtype", lambda: 2 * torch.eye(2, dtype=torch.long) - 1)
attempt("ones_like neg", lambda: -torch.ones_like(torch.eye(2, dtype=torch.bool)))
attempt("bool sub", lambda: torch.eye(2, dtype=torch.bool) - torch.eye(2, dtype=torch.bool))
attempt("bool neg", lambda: ~torch.eye(2, dtype=torch.bool))
attempt("label smoothing probs", lambda: F.cross_entropy(torch.zeros(2, 3), torch.eye(3)[:2], label_smoothing=0.3))
attempt("cosine dims", lambda: F.cosine_similarity(img, txt))
attempt("cosine broadcast", lambda: F.cosine_similarity(img[:1], img, dim=1))
attempt("normalize dim out", lambda: F.normalize(img, dim=2))
