"""LoRA for Conv2d (a rank-r conv then a 1x1) and for Embedding (a lookup into A), with merges and padding rules."""

import math
import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class LoraConv2d(nn.Module):
    def __init__(self, base: nn.Conv2d, r=2, alpha=4):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_A = nn.Conv2d(
            base.in_channels, r, base.kernel_size, base.stride, base.padding, dilation=base.dilation, bias=False
        )
        self.lora_B = nn.Conv2d(r, base.out_channels, (1, 1), (1, 1), bias=False)
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.normal_(self.lora_B.weight, std=0.1)
        self.scaling = alpha / r

    def delta_weight(self):
        wA, wB = self.lora_A.weight, self.lora_B.weight
        if self.base.weight.shape[2:4] == (1, 1):
            return (wB.squeeze(3).squeeze(2) @ wA.squeeze(3).squeeze(2)).unsqueeze(2).unsqueeze(3) * self.scaling
        return F.conv2d(wA.permute(1, 0, 2, 3), wB).permute(1, 0, 2, 3) * self.scaling

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(x)) * self.scaling


for base in (
    nn.Conv2d(3, 4, 3, stride=2, padding=1),
    nn.Conv2d(3, 4, 1),
    nn.Conv2d(3, 4, (3, 5), padding=(1, 2), dilation=1),
):
    layer = LoraConv2d(base)
    x = torch.randn(2, 3, 7, 7)
    with torch.no_grad():
        dw = layer.delta_weight()
        merged = F.conv2d(x, base.weight + dw, base.bias, base.stride, base.padding, base.dilation)
        print(tuple(dw.shape), tuple(layer(x).shape), "merge matches", torch.allclose(merged, layer(x), atol=1e-5))
print(layer)
out = layer(torch.randn(2, 3, 7, 7))
out.mean().backward()
print("conv grads", tuple(layer.lora_A.weight.grad.shape), layer.base.weight.grad, out.grad_fn.name())


class LoraEmbedding(nn.Module):
    def __init__(self, base: nn.Embedding, r=2, alpha=2):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_embedding_A = nn.Parameter(torch.zeros(r, base.num_embeddings))
        self.lora_embedding_B = nn.Parameter(torch.randn(base.embedding_dim, r))
        self.scaling = alpha / r

    def forward(self, ids):
        after_A = F.embedding(
            ids,
            self.lora_embedding_A.T,
            self.base.padding_idx,
            self.base.max_norm,
            self.base.norm_type,
            self.base.scale_grad_by_freq,
            self.base.sparse,
        )
        return self.base(ids) + (after_A @ self.lora_embedding_B.T) * self.scaling

    def merged_weight(self):
        return self.base.weight + (self.lora_embedding_B @ self.lora_embedding_A).T * self.scaling


emb = LoraEmbedding(nn.Embedding(10, 4, padding_idx=0))
ids = torch.tensor([[0, 3, 3, 7], [1, 0, 9, 3]])
print("A zeros -> base", torch.equal(emb(ids), emb.base(ids)))
nn.init.normal_(emb.lora_embedding_A)
out = emb(ids)
out.sum().backward()
gA = emb.lora_embedding_A.grad
print("A grad on padding column", gA[:, 0].tolist(), "on id 3", gA[:, 3].round(decimals=4).tolist())
with torch.no_grad():
    print("merged", torch.allclose(F.embedding(ids, emb.merged_weight()), emb(ids), atol=1e-6))
print("padding row zero", emb.base.weight[0].tolist())

# scale_grad_by_freq and max_norm semantics of F.embedding
W = torch.randn(6, 3, requires_grad=True)
F.embedding(torch.tensor([1, 1, 1, 2]), W, scale_grad_by_freq=True).sum().backward()
print("scaled grads", W.grad[1].tolist(), W.grad[2].tolist())
Wn = torch.randn(6, 3) * 5
before = Wn.clone()
F.embedding(torch.tensor([0, 2]), Wn, max_norm=1.0)
print("renormed in place", [round(v, 4) for v in Wn.norm(dim=1).tolist()], torch.equal(Wn[1], before[1]))
sp = nn.Embedding(5, 2, sparse=True)
sp(torch.tensor([1, 3, 1])).sum().backward()
print(
    "sparse grad",
    sp.weight.grad.layout,
    sp.weight.grad.coalesce().indices().tolist(),
    sp.weight.grad.to_dense().tolist(),
)
try:
    F.embedding(torch.tensor([1.0]), W)
except RuntimeError as e:
    print(type(e).__name__, e)
try:
    emb(torch.tensor([10]))
except IndexError as e:
    print(type(e).__name__, e)
try:
    nn.Embedding(5, 2, padding_idx=7)
except AssertionError as e:
    print(type(e).__name__, e)
try:
    F.conv2d(torch.randn(1, 3, 5, 5), torch.randn(4, 2, 3, 3))
except RuntimeError as e:
    print(type(e).__name__, e)
print(nn.Embedding(5, 2, padding_idx=-1).padding_idx)
