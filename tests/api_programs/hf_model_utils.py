"""The model utilities HuggingFace's PreTrainedModel and Trainer lean on: resize_token_embeddings, gradient
checkpointing (use_reentrant=False), torch.compile's _orig_mod state_dict keys, save/load to a directory with
weights_only, mean-pooled sentence embeddings with a contrastive loss, label smoothing, forward pre-hooks with
kwargs, get_submodule/get_parameter, dtype casts, and bf16 autocast."""

# ruff: noqa
import os
import tempfile
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint

rng = np.random.default_rng(3)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, 2, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)

    def forward(self, x, key_padding_mask=None):
        a, _ = self.attn(x, x, x, key_padding_mask=key_padding_mask, need_weights=False)
        x = self.norm1(x + a)
        return self.norm2(x + self.ff(x))


class Encoder(nn.Module):
    def __init__(self, vocab=20, d=8, n=2):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab, d, padding_idx=0)
        self.layers = nn.ModuleList(Layer(d) for _ in range(n))
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.embed_tokens.weight
        self.gradient_checkpointing = False

    @property
    def dtype(self):
        return next(self.parameters()).dtype

    def num_parameters(self, only_trainable=False, exclude_embeddings=False):
        emb = {f"{n}.weight" for n, m in self.named_modules() if isinstance(m, nn.Embedding)}
        return sum(p.numel() for n, p in self.named_parameters()
                   if (p.requires_grad or not only_trainable) and not (exclude_embeddings and n in emb))

    def resize_token_embeddings(self, new_num_tokens, pad_to_multiple_of=None):
        if pad_to_multiple_of is not None:
            new_num_tokens = ((new_num_tokens + pad_to_multiple_of - 1) // pad_to_multiple_of) * pad_to_multiple_of
        old = self.embed_tokens
        new = nn.Embedding(new_num_tokens, old.embedding_dim, padding_idx=old.padding_idx,
                           device=old.weight.device, dtype=old.weight.dtype)
        n = min(old.num_embeddings, new_num_tokens)
        with torch.no_grad():
            new.weight.normal_(mean=0.0, std=0.02)
            new.weight[:n, :] = old.weight[:n, :]
            mean = old.weight[:n].mean(0)
            new.weight[n:] = mean
        self.embed_tokens = new
        self.lm_head.weight = new.weight
        self.lm_head.out_features = new_num_tokens
        return new

    def forward(self, input_ids, attention_mask):
        x = self.embed_tokens(input_ids)
        kpm = attention_mask == 0
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                x = torch.utils.checkpoint.checkpoint(layer, x, kpm, use_reentrant=False)
            else:
                x = layer(x, key_padding_mask=kpm)
        return x


def init(m):
    with torch.no_grad():
        for name, p in m.named_parameters():
            p.copy_((1.0 if "norm" in name and name.endswith("weight") else 0.0) + T(*p.shape) * 0.3)


model = Encoder()
init(model)
print("dtype", model.dtype, "params", model.num_parameters(), model.num_parameters(exclude_embeddings=True))
print("submodule", type(model.get_submodule("layers.1.ff.0")).__name__,
      tuple(model.get_parameter("layers.0.attn.in_proj_weight").shape))
try:
    model.get_submodule("layers.5")
except AttributeError as e:
    print("AttributeError", e)

ids = torch.tensor([[4, 9, 2, 7, 0, 0], [3, 3, 8, 1, 5, 6], [11, 2, 0, 0, 0, 0]])
mask = (ids != 0).long()
model.eval()
with torch.no_grad():
    h = model(ids, mask)
print("hidden", tuple(h.shape), r(h[0, 0]))


def mean_pooling(token_embeddings, attention_mask):
    input_mask_expanded = attention_mask.unsqueeze(-1).expand(token_embeddings.size()).float()
    return torch.sum(token_embeddings * input_mask_expanded, 1) / torch.clamp(input_mask_expanded.sum(1), min=1e-9)


emb = F.normalize(mean_pooling(h, mask), p=2, dim=1)
print("sentence emb", r(emb), r(emb.norm(dim=1)))
sim = emb @ emb.T
print("cos sim", r(sim[0]), r(F.cosine_similarity(emb[:, None], emb[None], dim=-1)[0]))

# gradient checkpointing gives the same gradients as the plain forward
model.train()
for layer in model.layers:
    layer.attn.dropout = 0.0
labels = torch.tensor([[9, 2, 7, 1, -100, -100], [3, 8, 1, 5, 6, 2], [2, 4, -100, -100, -100, -100]])
grads = []
for ckpt in (False, True):
    model.zero_grad()
    model.gradient_checkpointing = ckpt
    logits = model.lm_head(model(ids, mask))
    loss = F.cross_entropy(logits.transpose(1, 2), labels, ignore_index=-100, label_smoothing=0.1)
    loss.backward()
    grads.append(model.layers[0].ff[0].weight.grad.clone())
    print("loss ckpt", ckpt, round(loss.item(), 4))
print("ckpt grads equal", torch.allclose(grads[0], grads[1], atol=1e-6), r(grads[1]))
print("ls none", r(F.cross_entropy(logits.reshape(-1, 20), labels.view(-1), reduction="none", label_smoothing=0.1)))

# resize embeddings keeps old rows, ties the head, pads to a multiple
new = model.resize_token_embeddings(23, pad_to_multiple_of=8)
print("resized", tuple(new.weight.shape), model.lm_head.weight is new.weight, r(new.weight[24 - 1]),
      torch.equal(new.weight[0], torch.zeros(8)))
with torch.no_grad():
    print("resized logits", tuple(model.lm_head(model(ids, mask)).shape))


# forward pre-hook with kwargs, as accelerate's hooks rewrite inputs
def pre_hook(module, args, kwargs):
    kwargs = dict(kwargs)
    kwargs["attention_mask"] = torch.ones_like(args[0])
    return args, kwargs


handle = model.register_forward_pre_hook(pre_hook, with_kwargs=True)
with torch.no_grad():
    a = model(ids, attention_mask=mask)
    b = model(ids, attention_mask=torch.ones_like(ids))
print("hook rewrote mask", torch.equal(a, b))
handle.remove()


def fwd_hook(module, args, kwargs, output):
    return output * 0 + kwargs["attention_mask"].sum()


handle = model.register_forward_hook(fwd_hook, with_kwargs=True)
with torch.no_grad():
    print("fwd hook", model(ids, attention_mask=mask)[0, 0, :2].tolist())
handle.remove()

# compile wraps the model: its state_dict keys gain _orig_mod.
compiled = torch.compile(model)
keys = list(compiled.state_dict().keys())
print("compiled keys", keys[:2], len(keys), type(compiled).__name__)
clean = {k.removeprefix("_orig_mod."): v for k, v in compiled.state_dict().items()}
print("stripped", sorted(clean) == sorted(model.state_dict()))
print("orig_mod", compiled._orig_mod is model)

# save_pretrained / from_pretrained shapes
with tempfile.TemporaryDirectory() as d:
    path = os.path.join(d, "pytorch_model.bin")
    sd = {k: v for k, v in model.state_dict().items() if k != "lm_head.weight"}
    torch.save(sd, path)
    loaded = torch.load(path, map_location="cpu", weights_only=True)
    fresh = Encoder(vocab=24)
    result = fresh.load_state_dict(loaded, strict=False)
    print("missing", result.missing_keys, "unexpected", result.unexpected_keys)
    fresh.lm_head.weight = fresh.embed_tokens.weight
    print("tied after load", torch.equal(fresh.lm_head.weight, model.lm_head.weight))
    bad = dict(loaded)
    bad["embed_tokens.weight"] = bad["embed_tokens.weight"][:20]
    try:
        fresh.load_state_dict(bad, strict=False)
    except RuntimeError as e:
        print("RuntimeError", str(e).splitlines()[1].strip())
    print("file keys", len(loaded), all(isinstance(v, torch.Tensor) for v in loaded.values()))

# dtype casts and autocast
half = Encoder().to(torch.bfloat16)
print("bf16", half.dtype, half.layers[0].norm1.weight.dtype, half.embed_tokens.weight.dtype)
model.eval()
with torch.autocast("cpu", dtype=torch.bfloat16):
    out = model.lm_head(model(ids, mask))
print("autocast out", out.dtype, tuple(out.shape))
model.requires_grad_(False)
model.lm_head.requires_grad_(True)
print("trainable", model.num_parameters(only_trainable=True))
print("float16 finfo", torch.finfo(torch.float16).max, torch.iinfo(torch.int64).max)
