"""What NLP scripts print and the errors they hit: print(model) with extra_repr and nested ModuleDicts, tensor
reprs of token ids, masks, bf16 and grad_fn, return_types from topk/max/sort, and the messages of an embedding
index out of range, a non-contiguous view, mismatched matmuls and cross-entropy targets."""

# ruff: noqa
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(4)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


class RotaryEmbedding(nn.Module):
    def __init__(self, dim, base=10000):
        super().__init__()
        inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self.dim, self.base = dim, base

    def extra_repr(self):
        return f"dim={self.dim}, base={self.base}"


class Adapter(nn.Module):
    def __init__(self, d, r):
        super().__init__()
        self.down = nn.Linear(d, r, bias=False)
        self.act = nn.SiLU()
        self.up = nn.Linear(r, d)
        self.scale = nn.Parameter(torch.tensor(0.5))


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 8, padding_idx=1, max_norm=2.0)
        self.rotary = RotaryEmbedding(4)
        self.adapters = nn.ModuleDict({"en": Adapter(8, 2), "de": Adapter(8, 2)})
        self.blocks = nn.ModuleList([nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True,
                                                                norm_first=True, activation="gelu")])
        self.dropout = nn.Dropout(p=0.1, inplace=False)
        self.norm = nn.LayerNorm(8, eps=1e-5, elementwise_affine=True, bias=False)
        self.heads = nn.ParameterDict({"cls": nn.Parameter(torch.zeros(8, 3))})
        self.lstm = nn.LSTM(8, 4, num_layers=2, batch_first=True, bidirectional=True, dropout=0.1)
        self.ln_list = nn.ModuleList([nn.Identity(), nn.Identity()])


m = Model()
print(m)
print(m.adapters)
print(m.heads)

ids = torch.tensor([[2, 5, 7, 1], [3, 1, 1, 1]])
print(ids)
print(ids != 1)
print((ids != 1).long().sum(-1))
x = T(2, 3).requires_grad_()
print(x * 2)
print((x * 2).sum())
print(x.to(torch.bfloat16))
print(x.detach().half().mean(-1))
print(torch.tensor([1e-8, 1.0, 1e6]))
print(torch.tensor([[True, False]]))
print(torch.empty(0, 3), torch.zeros(2, 0, dtype=torch.long))
print(torch.finfo(torch.float32))
logits = T(2, 5)
print(torch.topk(logits, 2))
print(logits.max(dim=-1))
print(torch.sort(logits[0], descending=True, stable=True))
vals, idx = logits.max(-1)
print(vals.shape, idx.dtype, torch.Size([2, 3]), torch.Size([2, 3]).numel())
print(torch.device("cpu"), torch.device("cpu", 0) if False else "", torch.cuda.is_available())


def err(fn):
    try:
        fn()
    except Exception as e:
        print(type(e).__name__, "|", str(e).splitlines()[0][:160])


emb = nn.Embedding(10, 4)
err(lambda: emb(torch.tensor([3, 10])))
err(lambda: emb(torch.tensor([1.0, 2.0])))
err(lambda: T(4, 6).t().view(24))
err(lambda: T(2, 3) @ T(4, 5))
err(lambda: nn.Linear(8, 4)(T(2, 6)))
err(lambda: F.cross_entropy(T(3, 5), torch.tensor([1, 2, 5])))
err(lambda: F.cross_entropy(T(3, 5), torch.tensor([1.0, 2.0, 3.0])))
err(lambda: F.cross_entropy(T(3, 5), torch.tensor([1, 2])))
err(lambda: F.cross_entropy(T(2, 5, 4), torch.tensor([[1, 2, 0, 1], [0, 0, 0, 0]])))
err(lambda: torch.cat([T(2, 3), T(2, 4)]))
err(lambda: torch.stack([T(2, 3), T(3, 3)]))
err(lambda: T(2, 3).reshape(4, 2))
err(lambda: T(2, 3).expand(4, 3))
err(lambda: nn.MultiheadAttention(10, 3))
err(lambda: nn.TransformerEncoderLayer(8, 3))
err(lambda: ids.float().masked_fill(ids, 0.0))
err(lambda: torch.ones(2, 3).masked_fill(torch.ones(2, 3, dtype=torch.bool), torch.ones(2)))
err(lambda: F.softmax(torch.tensor([1, 2, 3]), dim=0))
err(lambda: torch.multinomial(torch.tensor([0.0, 0.0]), 1))
err(lambda: torch.multinomial(torch.tensor([0.5, 0.5]), 3))
err(lambda: torch.gather(T(2, 3), 1, torch.tensor([[0, 3]])))
err(lambda: T(2, 3).view(-1, -1))
err(lambda: T(3).requires_grad_().numpy())
err(lambda: torch.tensor([1, 2]).requires_grad_())
err(lambda: m.load_state_dict({"foo": torch.zeros(1)}))
err(lambda: nn.utils.rnn.pack_padded_sequence(T(2, 3, 4), torch.tensor([2, 3]), batch_first=True))
err(lambda: nn.utils.rnn.pad_sequence([torch.ones(2, 3), torch.ones(2, 4)]))
err(lambda: T(2, 3, 4) @ T(3, 4, 5))
err(lambda: nn.LSTM(3, 4)(T(5, 2, 3), (torch.zeros(1, 2, 4), torch.zeros(1, 3, 4))))
err(lambda: nn.LSTM(3, 4)(T(5, 2, 3), (torch.zeros(1, 3, 4), torch.zeros(1, 2, 4))))
err(lambda: nn.GRU(3, 4)(T(5, 2, 3), torch.zeros(2, 2, 4)))
err(lambda: torch.topk(T(3), 4))
err(lambda: torch.multinomial(torch.tensor([1, 2]), 1))
err(lambda: torch.multinomial(torch.ones(1, 2, 3), 1))
err(lambda: T(6).view(-2, 3))
err(lambda: F.scaled_dot_product_attention(T(1, 4, 3, 2), T(1, 3, 3, 2), T(1, 3, 3, 2), enable_gqa=True))
print(torch.iinfo(torch.int32), torch.iinfo(torch.int8), torch.iinfo(torch.int64).max)
print(f"{torch.tensor(0.25)} {torch.tensor(3)} {torch.tensor(True)} {torch.tensor([0.5])} {torch.tensor(1.23456):.2f}")
print("sdp flags", torch.backends.cuda.flash_sdp_enabled(), torch.backends.cuda.math_sdp_enabled(),
      torch.backends.cuda.mem_efficient_sdp_enabled())
print("dynamo disable", torch._dynamo.disable(lambda x: x + 1)(1))
print("expand strides", torch.arange(6).expand(1, -1).stride(), torch.ones(3, 1).expand(1, 3, 4).stride())


def assign(dst, src):
    dst[:] = src


err(lambda: assign(torch.zeros(2, 3), torch.ones(4)))
err(lambda: assign(torch.zeros(2, 3), torch.ones(2, 2, 3)))
err(lambda: torch.zeros(3, 2).copy_(torch.ones(2, 3)))
err(lambda: torch.zeros(2, 3).copy_(torch.ones(1, 1, 3)))
h = torch.zeros(2, 3)
h[:] = torch.arange(3.0).view(1, 1, 3)
print("broadcast assign", h.tolist())
