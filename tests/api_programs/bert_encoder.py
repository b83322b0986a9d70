"""A BERT-style encoder as HuggingFace writes it: position_ids as a non-persistent expanded buffer, token types,
extended attention mask with finfo.min, tanh-GELU, _init_weights through apply with isinstance branches and
padding_idx zeroing, tied MLM decoder, MLM loss with ignore_index=-100, a pooler, and checkpoint round trips."""

# ruff: noqa
import io
import math
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

rng = np.random.default_rng(0)
torch.manual_seed(0)


def T(*s):
    return torch.from_numpy(rng.standard_normal(s).astype(np.float32))


def r(x):
    return np.round(x.detach().double().flatten()[:6].numpy(), 4).tolist()


class Config:
    vocab_size = 30
    hidden_size = 16
    num_hidden_layers = 2
    num_attention_heads = 4
    intermediate_size = 32
    max_position_embeddings = 12
    type_vocab_size = 2
    layer_norm_eps = 1e-12
    pad_token_id = 0
    initializer_range = 0.02
    hidden_dropout_prob = 0.0


class BertEmbeddings(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.word_embeddings = nn.Embedding(config.vocab_size, config.hidden_size, padding_idx=config.pad_token_id)
        self.position_embeddings = nn.Embedding(config.max_position_embeddings, config.hidden_size)
        self.token_type_embeddings = nn.Embedding(config.type_vocab_size, config.hidden_size)
        self.LayerNorm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)
        self.register_buffer("position_ids", torch.arange(config.max_position_embeddings).expand((1, -1)),
                             persistent=False)
        self.register_buffer("token_type_ids", torch.zeros(self.position_ids.size(), dtype=torch.long),
                             persistent=False)

    def forward(self, input_ids, token_type_ids=None, past_key_values_length=0):
        input_shape = input_ids.size()
        seq_length = input_shape[1]
        position_ids = self.position_ids[:, past_key_values_length: seq_length + past_key_values_length]
        if token_type_ids is None:
            buffered = self.token_type_ids[:, :seq_length]
            token_type_ids = buffered.expand(input_shape[0], seq_length)
        emb = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        emb = emb + self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(emb))


class BertSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = int(config.hidden_size / config.num_attention_heads)
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(config.hidden_size, self.all_head_size)
        self.key = nn.Linear(config.hidden_size, self.all_head_size)
        self.value = nn.Linear(config.hidden_size, self.all_head_size)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        x = x.view(new_x_shape)
        return x.permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask=None, output_attentions=False):
        q = self.transpose_for_scores(self.query(hidden_states))
        k = self.transpose_for_scores(self.key(hidden_states))
        v = self.transpose_for_scores(self.value(hidden_states))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.attention_head_size)
        if attention_mask is not None:
            scores = scores + attention_mask
        probs = nn.functional.softmax(scores, dim=-1)
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        ctx = ctx.view(ctx.size()[:-2] + (self.all_head_size,))
        return (ctx, probs) if output_attentions else (ctx,)


class BertLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = BertSelfAttention(config)
        self.attn_out = nn.Linear(config.hidden_size, config.hidden_size)
        self.ln1 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.intermediate = nn.Linear(config.hidden_size, config.intermediate_size)
        self.output = nn.Linear(config.intermediate_size, config.hidden_size)
        self.ln2 = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, h, attention_mask=None, output_attentions=False):
        outs = self.attention(h, attention_mask, output_attentions)
        h = self.ln1(self.attn_out(outs[0]) + h)
        inter = nn.functional.gelu(self.intermediate(h), approximate="tanh")
        h = self.ln2(self.output(inter) + h)
        return (h,) + outs[1:]


class BertPreTrainedModel(nn.Module):
    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            module.weight.data.normal_(mean=0.0, std=self.config.initializer_range)
            if module.bias is not None:
                module.bias.data.zero_()
        elif isinstance(module, nn.Embedding):
            module.weight.data.normal_(mean=0.0, std=self.config.initializer_range)
            if module.padding_idx is not None:
                module.weight.data[module.padding_idx].zero_()
        elif isinstance(module, nn.LayerNorm):
            module.bias.data.zero_()
            module.weight.data.fill_(1.0)

    def get_extended_attention_mask(self, attention_mask, input_shape, dtype=torch.float32):
        if attention_mask.dim() == 3:
            extended = attention_mask[:, None, :, :]
        elif attention_mask.dim() == 2:
            extended = attention_mask[:, None, None, :]
        else:
            raise ValueError(f"Wrong shape for input_ids (shape {input_shape}) or attention_mask "
                             f"(shape {attention_mask.shape})")
        extended = extended.to(dtype=dtype)
        return (1.0 - extended) * torch.finfo(dtype).min


class BertForMaskedLM(BertPreTrainedModel):
    _tied_weights_keys = ["decoder.weight"]

    def __init__(self, config):
        super().__init__()
        self.config = config
        self.embeddings = BertEmbeddings(config)
        self.layers = nn.ModuleList([BertLayer(config) for _ in range(config.num_hidden_layers)])
        self.pooler = nn.Sequential(nn.Linear(config.hidden_size, config.hidden_size), nn.Tanh())
        self.transform = nn.Linear(config.hidden_size, config.hidden_size)
        self.transform_ln = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.decoder = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.bias = nn.Parameter(torch.zeros(config.vocab_size))
        self.decoder.bias = self.bias
        self.apply(self._init_weights)
        self.decoder.weight = self.embeddings.word_embeddings.weight

    def get_input_embeddings(self):
        return self.embeddings.word_embeddings

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, labels=None, output_attentions=False):
        if attention_mask is None:
            attention_mask = torch.ones(input_ids.shape, device=input_ids.device)
        ext = self.get_extended_attention_mask(attention_mask, input_ids.shape)
        h = self.embeddings(input_ids, token_type_ids)
        attns = ()
        for layer in self.layers:
            outs = layer(h, ext, output_attentions)
            h = outs[0]
            if output_attentions:
                attns = attns + (outs[1],)
        pooled = self.pooler(h[:, 0])
        t = self.transform_ln(F.gelu(self.transform(h)))
        logits = self.decoder(t)
        loss = None
        if labels is not None:
            loss = nn.CrossEntropyLoss()(logits.view(-1, self.config.vocab_size), labels.view(-1))
        return loss, logits, pooled, attns


cfg = Config()
model = BertForMaskedLM(cfg)
print("pad row zero", bool((model.embeddings.word_embeddings.weight[0] == 0).all()))
print("init std ok", 0.01 < model.layers[0].attention.query.weight.std().item() < 0.03)
print("tied", model.decoder.weight is model.get_input_embeddings().weight, model.decoder.bias is model.bias)
sd = model.state_dict()
print("position_ids in sd", "embeddings.position_ids" in sd, "token_type_ids" in "".join(sd.keys()))
print("buffers", [n for n, _ in model.named_buffers()])
print("position_ids", model.embeddings.position_ids.shape, model.embeddings.position_ids.dtype,
      model.embeddings.position_ids.is_contiguous(), model.embeddings.position_ids.stride())
n_params = sum(p.numel() for p in model.parameters())
n_unique = len({id(p) for p in model.parameters()})
print("params", n_params, n_unique, len(list(model.named_parameters())), len(list(model.named_parameters(remove_duplicate=False))))

# deterministic weights for numeric checks
with torch.no_grad():
    for name, p in model.named_parameters():
        if "LayerNorm" in name or "ln" in name:
            p.copy_((1.0 if name.endswith("weight") else 0.0) + T(*p.shape) * 0.1)
        else:
            p.copy_(T(*p.shape) * 0.3)
    model.embeddings.word_embeddings.weight[cfg.pad_token_id].zero_()

ext = model.get_extended_attention_mask(torch.tensor([[1, 1, 0]]), (1, 3))
print("ext mask", ext.shape, ext.dtype, ext[0, 0, 0].tolist())
print("finfo", torch.finfo(torch.float32).min, torch.finfo(torch.float16).min, torch.finfo(torch.bfloat16).eps)
try:
    model.get_extended_attention_mask(torch.ones(2), (2,))
except ValueError as e:
    print("ValueError", e)

input_ids = torch.tensor([[2, 5, 7, 9, 3, 0, 0], [2, 11, 4, 3, 0, 0, 0]])
attention_mask = (input_ids != cfg.pad_token_id).long()
token_type_ids = torch.tensor([[0, 0, 0, 1, 1, 0, 0], [0, 0, 1, 1, 0, 0, 0]])
labels = torch.full_like(input_ids, -100)
labels[0, 2] = 7
labels[1, 1] = 11
masked_input = input_ids.masked_fill(labels != -100, 1)
print("masked input", masked_input.tolist())
model.eval()
loss, logits, pooled, attns = model(masked_input, attention_mask, token_type_ids, labels, output_attentions=True)
print("loss", round(loss.item(), 4))
print("logits", tuple(logits.shape), r(logits))
print("pooled", r(pooled))
print("attn", len(attns), tuple(attns[0].shape), r(attns[0][1, 0, -1]))
print("padded attn zero", bool((attns[1][:, :, :, -2:][0] < 1e-6).all()))
pred = torch.where(labels != -100, logits.argmax(-1), torch.full_like(labels, -100))
print("pred", pred.tolist())
manual = F.cross_entropy(logits.view(-1, cfg.vocab_size), labels.view(-1), ignore_index=-100, reduction="sum")
print("manual", round(manual.item() / (labels != -100).sum().item(), 4))

# one training step with AdamW and weight decay param groups, as HF Trainer builds them
no_decay = ["bias", "LayerNorm.weight", "ln1.weight", "ln2.weight", "transform_ln.weight"]
groups = [
    {"params": [p for n, p in model.named_parameters() if not any(nd in n for nd in no_decay)], "weight_decay": 0.01},
    {"params": [p for n, p in model.named_parameters() if any(nd in n for nd in no_decay)], "weight_decay": 0.0},
]
print("groups", [len(g["params"]) for g in groups])
opt = torch.optim.AdamW(groups, lr=1e-3)
model.train()
for step in range(3):
    loss = model(masked_input, attention_mask, token_type_ids, labels)[0]
    opt.zero_grad(set_to_none=True)
    loss.backward()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print("step", step, round(loss.item(), 4), round(gn.item(), 4))
print("still tied", model.decoder.weight is model.embeddings.word_embeddings.weight)

# checkpoint round trip: the non-persistent buffer is absent, strict=False reports keys
buf = io.BytesIO()
torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": 3}, buf)
buf.seek(0)
ckpt = torch.load(buf, map_location="cpu", weights_only=True)
print("ckpt", sorted(ckpt.keys()), ckpt["epoch"], len(ckpt["optimizer"]["param_groups"]),
      sorted(ckpt["optimizer"]["param_groups"][0].keys()))
fresh = BertForMaskedLM(cfg)
sd = dict(ckpt["model"])
sd.pop("pooler.0.bias")
sd["classifier.weight"] = torch.zeros(2, 16)
res = fresh.load_state_dict(sd, strict=False)
print(res)
print("missing", res.missing_keys, "unexpected", res.unexpected_keys)
try:
    fresh.load_state_dict(sd)
except RuntimeError as e:
    print("RuntimeError", str(e).splitlines()[0])
fresh.eval()
print("same logits", torch.allclose(fresh(masked_input, attention_mask, token_type_ids)[1][:, :, :5],
                                    model.eval()(masked_input, attention_mask, token_type_ids)[1][:, :, :5], atol=1e-5))
opt2 = torch.optim.AdamW(fresh.parameters(), lr=1e-3)
try:
    opt2.load_state_dict(ckpt["optimizer"])
except ValueError as e:
    print("ValueError", e)
