"""What the idioms of the popular answers look like when printed in a notebook: the grad_fn names behind
gather/indexing/one-hot/masking/expand/repeat/view/permute/stack/cat and friends, next_functions chains,
in-place edits on views (CopySlices), and the print options people set (sci_mode, precision, profile, threshold,
linewidth, edgeitems)."""

import numpy as np
import torch
import torch.nn.functional as F

rng = np.random.default_rng(17)
x = torch.from_numpy(rng.standard_normal((3, 4)).astype(np.float32)).requires_grad_()
idx = torch.tensor([1, 0, 3])
mask = torch.tensor([[True, False, True, True]] * 3)

ops = {
    "gather": lambda: x.gather(1, idx[:, None]),
    "adv_index": lambda: x[torch.arange(3), idx],
    "bool_index": lambda: x[mask],
    "select": lambda: x[0],
    "slice": lambda: x[:, 1:],
    "none_index": lambda: x[None],
    "unsqueeze": lambda: x.unsqueeze(0),
    "squeeze": lambda: x[None].squeeze(0),
    "view": lambda: x.view(12),
    "reshape": lambda: x.reshape(2, 6),
    "reshape_t": lambda: x.t().reshape(12),
    "flatten": lambda: x.flatten(),
    "unflatten": lambda: x.unflatten(1, (2, 2)),
    "permute": lambda: x.permute(1, 0),
    "transpose": lambda: x.transpose(0, 1),
    "t": lambda: x.t(),
    "contiguous": lambda: x.t().contiguous(),
    "expand": lambda: x[:, :1].expand(3, 5),
    "repeat": lambda: x.repeat(2, 1),
    "repeat_interleave": lambda: x.repeat_interleave(2, dim=0),
    "stack": lambda: torch.stack([x, x]),
    "cat": lambda: torch.cat([x, x], 1),
    "masked_fill": lambda: x.masked_fill(~mask, float("-inf")),
    "where": lambda: torch.where(mask, x, 0.0),
    "softmax": lambda: x.softmax(-1),
    "log_softmax": lambda: F.log_softmax(x, -1),
    "logsumexp": lambda: x.logsumexp(1),
    "argmax_max": lambda: x.max(1).values,
    "amax": lambda: x.amax(1),
    "topk": lambda: x.topk(2).values,
    "sort": lambda: x.sort(1).values,
    "cumsum": lambda: x.cumsum(1),
    "clamp": lambda: x.clamp(min=0),
    "clamp_min": lambda: x.clamp_min(1e-8),
    "cdist": lambda: torch.cdist(x, x),
    "norm": lambda: x.norm(dim=1),
    "normalize": lambda: F.normalize(x, dim=1),
    "cosine": lambda: F.cosine_similarity(x, x.flip(0)),
    "einsum": lambda: torch.einsum("ij,kj->ik", x, x),
    "matmul": lambda: x @ x.t(),
    "bmm": lambda: torch.bmm(x[None], x.t()[None]),
    "mean": lambda: x.mean(),
    "sum_dim": lambda: x.sum(1, keepdim=True),
    "pow": lambda: x ** 2,
    "sqrt": lambda: (x ** 2).sqrt(),
    "div_scalar": lambda: x / 2,
    "rsub": lambda: 1 - x,
    "neg": lambda: -x,
    "abs": lambda: x.abs(),
    "float": lambda: x.double(),
    "to": lambda: x.to(torch.float16),
    "clone": lambda: x.clone(),
    "one_hot_mul": lambda: x * F.one_hot(idx, 4)[:, :4].float(),
    "linear": lambda: F.linear(x, x),
    "linear_bias": lambda: F.linear(x, x, x[0, :3]),
    "relu": lambda: F.relu(x),
    "dropout_eval": lambda: F.dropout(x, training=False),
    "chunk": lambda: x.chunk(2, 1)[0],
    "split": lambda: x.split([1, 3], 1)[1],
    "unbind": lambda: x.unbind(0)[1],
    "narrow": lambda: x.narrow(1, 1, 2),
    "diag": lambda: x[:, :3].diagonal(),
    "triu": lambda: x.triu(),
    "index_select": lambda: x.index_select(1, idx),
    "take_along": lambda: torch.take_along_dim(x, idx[:, None], 1),
    "roll": lambda: x.roll(1, 0),
    "flip": lambda: x.flip(1),
    "pad": lambda: F.pad(x, (1, 1)),
    "sigmoid_bce": lambda: F.binary_cross_entropy_with_logits(x, torch.ones(3, 4)),
    "ce": lambda: F.cross_entropy(x, idx),
    "nll": lambda: F.nll_loss(x, idx),
    "mse": lambda: F.mse_loss(x, torch.zeros(3, 4)),
}
for name, fn in ops.items():
    out = fn()
    print(f"{name:18s} {type(out.grad_fn).__name__:26s} {tuple(out.shape)}")

y = (x * 2).sum()
print(y.grad_fn.name(), [type(f).__name__ if f else None for f, _ in y.grad_fn.next_functions])
print([(type(f).__name__ if f else None, i) for f, i in y.grad_fn.next_functions[0][0].next_functions])
print(y.grad_fn.next_functions[0][0].next_functions[0][0].variable is x,
      repr(y.grad_fn).startswith("<SumBackward0 object at 0x"))
z = x.clone()
z[0] = 0.0
print(type(z.grad_fn).__name__, z.grad_fn.name())
w = x.clone()
w[:, 1].mul_(2)
print(type(w.grad_fn).__name__)
w2 = x.clone()
w2.masked_fill_(~mask, 0.0)
print(type(w2.grad_fn).__name__, w2.requires_grad)
s = x.sum(1)
print(s)
print(x.gather(1, idx[:, None]))
print(F.one_hot(idx, 4) * 1.0)

t = torch.tensor([[1e-6, 123456.0], [0.5, 3.0]])
print(t)
torch.set_printoptions(sci_mode=False)
print(t)
torch.set_printoptions(precision=2)
print(t, torch.tensor([1.23456789]))
torch.set_printoptions(profile="default")
big = torch.arange(2000.0)
print(big)
torch.set_printoptions(threshold=5, edgeitems=2)
print(torch.arange(10), torch.arange(20).view(4, 5))
torch.set_printoptions(profile="full")
print(torch.arange(30))
torch.set_printoptions(profile="default", linewidth=40)
print(torch.arange(30.0) / 7)
torch.set_printoptions(profile="default")
print(torch.arange(30.0) / 7)
