"""HuggingFace modeling_utils written inline: save_pretrained with a sharded checkpoint and its index JSON into a
temporary directory, from_pretrained building on the meta device and loading with assign=True and torch_dtype,
_keys_to_ignore_on_load_unexpected, find_pruneable_heads_and_indices with prune_linear_layer (index_select on
weights), invert_attention_mask, enable_input_require_grads through a forward hook, the dtype/device properties,
and resize_token_embeddings(pad_to_multiple_of=8) initialising new rows from a MultivariateNormal of the old ones."""

import json
import os
import tempfile

import torch
from torch import nn

torch.manual_seed(0)
torch.set_printoptions(precision=4)


def find_pruneable_heads_and_indices(heads, n_heads, head_size, already_pruned_heads):
    mask = torch.ones(n_heads, head_size)
    heads = set(heads) - already_pruned_heads
    for head in heads:
        head = head - sum(1 if h < head else 0 for h in already_pruned_heads)
        mask[head] = 0
    mask = mask.view(-1).contiguous().eq(1)
    index = torch.arange(len(mask))[mask].long()
    return heads, index


def prune_linear_layer(layer, index, dim=0):
    index = index.to(layer.weight.device)
    W = layer.weight.index_select(dim, index).detach().clone()
    if layer.bias is not None:
        b = layer.bias.clone().detach() if dim == 1 else layer.bias[index].clone().detach()
    new_size = list(layer.weight.size())
    new_size[dim] = len(index)
    new_layer = nn.Linear(new_size[1], new_size[0], bias=layer.bias is not None).to(layer.weight.device)
    new_layer.weight.requires_grad = False
    new_layer.weight.copy_(W.contiguous())
    new_layer.weight.requires_grad = True
    if layer.bias is not None:
        new_layer.bias.requires_grad = False
        new_layer.bias.copy_(b.contiguous())
        new_layer.bias.requires_grad = True
    return new_layer


class SelfAttention(nn.Module):
    def __init__(self, hidden=16, heads=4):
        super().__init__()
        self.num_heads, self.head_size = heads, hidden // heads
        self.all_head_size = hidden
        self.query, self.key, self.value = nn.Linear(hidden, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden,
                                                                                                           hidden)
        self.dense = nn.Linear(hidden, hidden)
        self.pruned_heads = set()

    def prune_heads(self, heads):
        heads, index = find_pruneable_heads_and_indices(heads, self.num_heads, self.head_size, self.pruned_heads)
        self.query = prune_linear_layer(self.query, index)
        self.key = prune_linear_layer(self.key, index)
        self.value = prune_linear_layer(self.value, index)
        self.dense = prune_linear_layer(self.dense, index, dim=1)
        self.num_heads = self.num_heads - len(heads)
        self.all_head_size = self.head_size * self.num_heads
        self.pruned_heads = self.pruned_heads.union(heads)

    def forward(self, h, mask):
        b, n, _ = h.shape

        def split(x):
            return x.view(b, n, self.num_heads, self.head_size).transpose(1, 2)

        q, k, v = split(self.query(h)), split(self.key(h)), split(self.value(h))
        att = (q @ k.transpose(-1, -2) / self.head_size ** 0.5 + mask).softmax(-1)
        return self.dense((att @ v).transpose(1, 2).reshape(b, n, self.all_head_size))


class PreTrainedModel(nn.Module):
    _keys_to_ignore_on_load_unexpected = [r"pooler"]

    @property
    def dtype(self):
        return next(self.parameters()).dtype

    @property
    def device(self):
        return next(self.parameters()).device

    def invert_attention_mask(self, encoder_attention_mask):
        ext = encoder_attention_mask[:, None, None, :].to(dtype=self.dtype)
        return (1.0 - ext) * torch.finfo(self.dtype).min

    def enable_input_require_grads(self):
        def make_inputs_require_grads(module, input, output):
            output.requires_grad_(True)

        self._require_grads_hook = self.get_input_embeddings().register_forward_hook(make_inputs_require_grads)

    def save_pretrained(self, save_directory, max_shard_size=4000):
        os.makedirs(save_directory, exist_ok=True)
        with open(os.path.join(save_directory, "config.json"), "w") as f:
            json.dump(self.config, f, sort_keys=True)
        shards, current, size = [], {}, 0
        for k, v in self.state_dict().items():
            nbytes = v.numel() * v.element_size()
            if current and size + nbytes > max_shard_size:
                shards.append(current)
                current, size = {}, 0
            current[k] = v.contiguous()
            size += nbytes
        shards.append(current)
        weight_map, total = {}, 0
        for i, shard in enumerate(shards):
            name = f"pytorch_model-{i + 1:05d}-of-{len(shards):05d}.bin"
            torch.save(shard, os.path.join(save_directory, name))
            for k, v in shard.items():
                weight_map[k] = name
                total += v.numel() * v.element_size()
        index = {"metadata": {"total_size": total}, "weight_map": weight_map}
        with open(os.path.join(save_directory, "pytorch_model.bin.index.json"), "w") as f:
            json.dump(index, f, indent=2, sort_keys=True)
        return len(shards)

    @classmethod
    def from_pretrained(cls, directory, torch_dtype=None):
        with open(os.path.join(directory, "config.json")) as f:
            config = json.load(f)
        with torch.device("meta"):
            model = cls(config)
        with open(os.path.join(directory, "pytorch_model.bin.index.json")) as f:
            index = json.load(f)
        state = {}
        for shard in sorted(set(index["weight_map"].values())):
            state.update(torch.load(os.path.join(directory, shard), map_location="cpu", weights_only=True))
        state = {k: v.to(torch_dtype) if torch_dtype is not None and v.is_floating_point() else v
                 for k, v in state.items()}
        state = {k: v for k, v in state.items() if not any(p in k for p in cls._keys_to_ignore_on_load_unexpected)}
        result = model.load_state_dict(state, strict=False, assign=True)
        return model, result


class TinyEncoder(PreTrainedModel):
    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embeddings = nn.Embedding(config["vocab_size"], config["hidden"])
        self.attn = SelfAttention(config["hidden"], config["heads"])
        self.norm = nn.LayerNorm(config["hidden"])
        self.pooler = nn.Linear(config["hidden"], config["hidden"])

    def get_input_embeddings(self):
        return self.embeddings

    def resize_token_embeddings(self, new_num_tokens, pad_to_multiple_of=None):
        old = self.embeddings
        if pad_to_multiple_of is not None:
            new_num_tokens = ((new_num_tokens + pad_to_multiple_of - 1) // pad_to_multiple_of) * pad_to_multiple_of
        new = nn.Embedding(new_num_tokens, old.embedding_dim)
        n_old = old.num_embeddings
        with torch.no_grad():
            new.weight[:n_old] = old.weight
            old_w = old.weight.data.to(torch.float32)
            mean = torch.mean(old_w, axis=0)
            centered = old_w - mean
            covariance = centered.T @ centered / n_old
            dist = torch.distributions.multivariate_normal.MultivariateNormal(mean, covariance_matrix=1e-5 * covariance)
            new.weight[n_old:] = dist.sample(sample_shape=(new_num_tokens - n_old,)).to(old.weight.dtype)
        self.embeddings = new
        self.config["vocab_size"] = new_num_tokens
        return new

    def forward(self, ids, attention_mask):
        h = self.embeddings(ids)
        return self.norm(h + self.attn(h, self.invert_attention_mask(attention_mask)))


config = {"vocab_size": 20, "hidden": 16, "heads": 4}
model = TinyEncoder(config)
print("dtype", model.dtype, "device", model.device, "params", sum(p.numel() for p in model.parameters()))
ids = torch.tensor([[3, 4, 5, 0], [6, 7, 0, 0]])
mask = torch.tensor([[1, 1, 1, 0], [1, 1, 0, 0]])
inv = model.invert_attention_mask(mask)
print("inverted", inv.shape, inv[1, 0, 0].tolist())
model.eval()
with torch.no_grad():
    ref = model(ids, mask)
print("ref", ref[0, 0, :4])

with tempfile.TemporaryDirectory() as d:
    n_shards = model.save_pretrained(d, max_shard_size=1500)
    files = sorted(os.listdir(d))
    print("shards", n_shards, files)
    with open(os.path.join(d, "pytorch_model.bin.index.json")) as f:
        index = json.load(f)
    print("total_size", index["metadata"]["total_size"], "map", list(index["weight_map"].items())[:3])
    loaded, result = TinyEncoder.from_pretrained(d)
    print("missing", result.missing_keys, "unexpected", result.unexpected_keys)
    print("pooler still meta", loaded.pooler.weight.is_meta, "embeddings", loaded.embeddings.weight.device)
    half, _ = TinyEncoder.from_pretrained(d, torch_dtype=torch.float16)
    print("half dtype", half.dtype, half.attn.query.weight.dtype)
loaded.pooler = nn.Linear(16, 16)
loaded.eval()
with torch.no_grad():
    print("reloaded matches", torch.allclose(loaded(ids, mask), ref))
    print("half close", torch.allclose(half(ids, mask).float(), ref, atol=1e-2), half(ids, mask).dtype)

heads, index = find_pruneable_heads_and_indices({1, 3}, 4, 4, set())
print("prune index", sorted(heads), index.tolist())
model.attn.prune_heads([1, 3])
print(model.attn.query, model.attn.dense, "heads", model.attn.num_heads, model.attn.pruned_heads)
model.attn.prune_heads([1, 2])
print("after second prune", model.attn.num_heads, sorted(model.attn.pruned_heads), model.attn.value.weight.shape)
with torch.no_grad():
    print("pruned out", model(ids, mask).shape)

model.train()
model.requires_grad_(False)
model.enable_input_require_grads()
emb_out = {}
model.embeddings.register_forward_hook(lambda m, i, o: emb_out.setdefault("h", o))
out = model(ids, mask)
print("frozen model output requires_grad", out.requires_grad, emb_out["h"].requires_grad, emb_out["h"].is_leaf)
model._require_grads_hook.remove()

torch.manual_seed(3)
old_rows = model.embeddings.weight.detach().clone()
new_emb = model.resize_token_embeddings(21, pad_to_multiple_of=8)
print("resized", new_emb, model.config["vocab_size"], torch.equal(new_emb.weight[:20], old_rows))
new_rows = new_emb.weight[20:]
print("new rows near mean", (new_rows - old_rows.mean(0)).abs().max().item() < 0.05, new_rows[0, :4])
