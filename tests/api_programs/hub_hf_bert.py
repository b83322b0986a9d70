"""HuggingFace-style BERT written inline: a config dataclass with to_dict, a PreTrainedModel-like base whose
post_init applies _init_weights and ties the MLM decoder to the word embeddings, get_extended_attention_mask with
torch.finfo(dtype).min, ModelOutput-like dataclasses that index like tuples, output_hidden_states/attentions,
resize_token_embeddings keeping the tie, masked-LM loss with -100 labels, and a few AdamW steps."""

from collections import OrderedDict
from dataclasses import asdict, dataclass, fields

import torch
from torch import nn
from torch.nn import CrossEntropyLoss

torch.manual_seed(0)
torch.set_printoptions(precision=4)


@dataclass
class BertConfig:
    vocab_size: int = 50
    hidden_size: int = 32
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    intermediate_size: int = 64
    hidden_act: str = "gelu"
    hidden_dropout_prob: float = 0.1
    attention_probs_dropout_prob: float = 0.1
    max_position_embeddings: int = 16
    type_vocab_size: int = 2
    initializer_range: float = 0.02
    layer_norm_eps: float = 1e-12
    pad_token_id: int = 0
    tie_word_embeddings: bool = True
    output_hidden_states: bool = False

    def to_dict(self):
        return asdict(self)


class ModelOutput(OrderedDict):
    """A dataclass that also behaves as a tuple of its non-None fields."""

    def __post_init__(self):
        for f in fields(self):
            v = getattr(self, f.name)
            if v is not None:
                self[f.name] = v

    def __getitem__(self, k):
        if isinstance(k, str):
            return dict(self.items())[k]
        return self.to_tuple()[k]

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


@dataclass
class BaseModelOutputWithPooling(ModelOutput):
    last_hidden_state: torch.FloatTensor = None
    pooler_output: torch.FloatTensor = None
    hidden_states: tuple[torch.FloatTensor, ...] | None = None
    attentions: tuple[torch.FloatTensor, ...] | None = None


@dataclass
class MaskedLMOutput(ModelOutput):
    loss: torch.FloatTensor | None = None
    logits: torch.FloatTensor = None
    hidden_states: tuple[torch.FloatTensor, ...] | None = None


ACT2FN = {"gelu": nn.GELU(), "relu": nn.ReLU(), "gelu_new": nn.GELU(approximate="tanh")}


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

    def forward(self, input_ids, token_type_ids=None):
        seq_length = input_ids.size(1)
        position_ids = self.position_ids[:, :seq_length]
        if token_type_ids is None:
            token_type_ids = self.token_type_ids[:, :seq_length].expand(input_ids.size(0), seq_length)
        emb = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        emb = emb + self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(emb))


class BertSelfAttention(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.num_attention_heads = config.num_attention_heads
        self.attention_head_size = config.hidden_size // config.num_attention_heads
        self.all_head_size = self.num_attention_heads * self.attention_head_size
        self.query = nn.Linear(config.hidden_size, self.all_head_size)
        self.key = nn.Linear(config.hidden_size, self.all_head_size)
        self.value = nn.Linear(config.hidden_size, self.all_head_size)
        self.dropout = nn.Dropout(config.attention_probs_dropout_prob)

    def transpose_for_scores(self, x):
        new_x_shape = x.size()[:-1] + (self.num_attention_heads, self.attention_head_size)
        return x.view(new_x_shape).permute(0, 2, 1, 3)

    def forward(self, hidden_states, attention_mask=None):
        q = self.transpose_for_scores(self.query(hidden_states))
        k = self.transpose_for_scores(self.key(hidden_states))
        v = self.transpose_for_scores(self.value(hidden_states))
        scores = torch.matmul(q, k.transpose(-1, -2)) / (self.attention_head_size ** 0.5)
        if attention_mask is not None:
            scores = scores + attention_mask
        probs = self.dropout(nn.functional.softmax(scores, dim=-1))
        ctx = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return ctx.view(ctx.size()[:-2] + (self.all_head_size,)), probs


class BertLayer(nn.Module):
    def __init__(self, config):
        super().__init__()
        self.attention = BertSelfAttention(config)
        self.attn_out = nn.Linear(config.hidden_size, config.hidden_size)
        self.attn_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.intermediate = nn.Linear(config.hidden_size, config.intermediate_size)
        self.act = ACT2FN[config.hidden_act]
        self.output = nn.Linear(config.intermediate_size, config.hidden_size)
        self.out_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.dropout = nn.Dropout(config.hidden_dropout_prob)

    def forward(self, h, attention_mask=None):
        ctx, probs = self.attention(h, attention_mask)
        h = self.attn_norm(self.dropout(self.attn_out(ctx)) + h)
        h = self.out_norm(self.dropout(self.output(self.act(self.intermediate(h)))) + h)
        return h, probs


class BertPreTrainedModel(nn.Module):
    config_class = BertConfig
    base_model_prefix = "bert"
    _tied_weights_keys = ["cls.decoder.weight"]

    def __init__(self, config):
        super().__init__()
        self.config = config

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

    def post_init(self):
        self.apply(self._init_weights)
        self.tie_weights()

    def get_input_embeddings(self):
        return getattr(self, self.base_model_prefix, self).embeddings.word_embeddings

    def set_input_embeddings(self, value):
        getattr(self, self.base_model_prefix, self).embeddings.word_embeddings = value

    def get_output_embeddings(self):
        return None

    def tie_weights(self):
        out = self.get_output_embeddings()
        if out is not None and self.config.tie_word_embeddings:
            out.weight = self.get_input_embeddings().weight
            if getattr(out, "bias", None) is not None:
                out.bias.data = nn.functional.pad(out.bias.data, (0, out.weight.shape[0] - out.bias.shape[0]))
            out.out_features = out.weight.shape[0]

    def resize_token_embeddings(self, new_num_tokens):
        old = self.get_input_embeddings()
        new = nn.Embedding(new_num_tokens, old.embedding_dim, padding_idx=old.padding_idx)
        self._init_weights(new)
        n = min(old.num_embeddings, new_num_tokens)
        new.weight.data[:n, :] = old.weight.data[:n, :]
        self.set_input_embeddings(new)
        self.config.vocab_size = new_num_tokens
        self.tie_weights()
        return new

    def get_extended_attention_mask(self, attention_mask, dtype=torch.float32):
        extended = attention_mask[:, None, None, :].to(dtype=dtype)
        return (1.0 - extended) * torch.finfo(dtype).min

    def num_parameters(self, only_trainable=False, exclude_embeddings=False):
        params = {id(p): p for n, p in self.named_parameters()
                  if not (exclude_embeddings and "embeddings" in n) and (p.requires_grad or not only_trainable)}
        return sum(p.numel() for p in params.values())


class BertModel(BertPreTrainedModel):
    def __init__(self, config, add_pooling_layer=True):
        super().__init__(config)
        self.embeddings = BertEmbeddings(config)
        self.layer = nn.ModuleList([BertLayer(config) for _ in range(config.num_hidden_layers)])
        self.pooler = nn.Sequential(nn.Linear(config.hidden_size, config.hidden_size), nn.Tanh()) \
            if add_pooling_layer else None
        self.post_init()

    def forward(self, input_ids, attention_mask=None, token_type_ids=None, output_hidden_states=None,
                output_attentions=False):
        output_hidden_states = output_hidden_states if output_hidden_states is not None \
            else self.config.output_hidden_states
        if attention_mask is None:
            attention_mask = torch.ones_like(input_ids)
        ext = self.get_extended_attention_mask(attention_mask)
        h = self.embeddings(input_ids, token_type_ids)
        all_h, all_a = (h,) if output_hidden_states else None, () if output_attentions else None
        for layer in self.layer:
            h, probs = layer(h, ext)
            if output_hidden_states:
                all_h = all_h + (h,)
            if output_attentions:
                all_a = all_a + (probs,)
        pooled = self.pooler(h[:, 0]) if self.pooler is not None else None
        return BaseModelOutputWithPooling(last_hidden_state=h, pooler_output=pooled, hidden_states=all_h,
                                          attentions=all_a)


class BertForMaskedLM(BertPreTrainedModel):
    def __init__(self, config):
        super().__init__(config)
        self.bert = BertModel(config, add_pooling_layer=False)
        self.cls = nn.ModuleDict({"transform": nn.Linear(config.hidden_size, config.hidden_size),
                                  "norm": nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps),
                                  "decoder": nn.Linear(config.hidden_size, config.vocab_size)})
        self.post_init()

    def get_output_embeddings(self):
        return self.cls["decoder"]

    def forward(self, input_ids, attention_mask=None, labels=None, return_dict=True):
        outputs = self.bert(input_ids, attention_mask=attention_mask)
        h = self.cls["norm"](ACT2FN[self.config.hidden_act](self.cls["transform"](outputs[0])))
        logits = self.cls["decoder"](h)
        loss = None
        if labels is not None:
            loss = CrossEntropyLoss()(logits.view(-1, self.config.vocab_size), labels.view(-1))
        if not return_dict:
            return ((loss,) if loss is not None else ()) + (logits,)
        return MaskedLMOutput(loss=loss, logits=logits)


config = BertConfig()
print("config", {k: v for k, v in config.to_dict().items() if k in ("hidden_size", "vocab_size", "hidden_act")})
model = BertForMaskedLM(config)
print(model.bert.layer[0].attention)
print("tied", model.cls["decoder"].weight is model.bert.embeddings.word_embeddings.weight,
      model.get_input_embeddings())
print("num_parameters", model.num_parameters(), model.num_parameters(exclude_embeddings=True),
      "named unique", len(list(model.named_parameters())), "state_dict", len(model.state_dict()))
print("buffers", [n for n, _ in model.named_buffers()], "persistent keys",
      [k for k in model.state_dict() if "position_ids" in k])
emb = model.get_input_embeddings().weight
print("pad row zero", bool((emb[0] == 0).all()), "init std", round(emb[1:].std().item(), 4))

input_ids = torch.tensor([[2, 7, 9, 11, 3, 0, 0], [2, 5, 6, 8, 10, 12, 3]])
attention_mask = (input_ids != config.pad_token_id).long()
ext = model.get_extended_attention_mask(attention_mask)
print("extended mask", ext.shape, ext.dtype, ext[0, 0, 0].tolist()[-3:] == [0.0, torch.finfo(torch.float32).min,
                                                                             torch.finfo(torch.float32).min])
print("finfo min", torch.finfo(torch.float32).min, torch.finfo(torch.float16).min, torch.finfo(torch.bfloat16).min)

model.eval()
with torch.no_grad():
    out = model.bert(input_ids, attention_mask=attention_mask, output_hidden_states=True, output_attentions=True)
print("output keys", list(out.keys()), len(out.to_tuple()))
print("last_hidden", out.last_hidden_state.shape, "hidden_states", len(out.hidden_states),
      "attn", out.attentions[0].shape)
print("masked attention to pads", out.attentions[1][0, :, :, 5:].abs().max().item())
print("pooler", out.pooler_output, "is out[0]", out[0] is out["last_hidden_state"])

labels = torch.full_like(input_ids, -100)
labels[0, 2], labels[1, 4], labels[1, 1] = 9, 10, 5
masked = input_ids.clone()
masked[labels != -100] = 1  # [MASK]
model.train()
opt = torch.optim.AdamW(model.parameters(), lr=5e-3, weight_decay=0.01)
for step in range(4):
    torch.manual_seed(step)
    res = model(masked, attention_mask=attention_mask, labels=labels)
    opt.zero_grad()
    res.loss.backward()
    opt.step()
    print(f"step {step} mlm loss {res.loss.item():.4f} logits {tuple(res.logits.shape)}")
print("still tied after steps", model.cls["decoder"].weight.data_ptr() == emb.data_ptr(), len(opt.state))
loss_t, logits_t = model(masked, attention_mask, labels=labels, return_dict=False)
print("tuple output", type(loss_t).__name__, tuple(logits_t.shape))

new_emb = model.resize_token_embeddings(56)
print("resized", new_emb, model.cls["decoder"], model.cls["decoder"].bias.shape, model.config.vocab_size)
print("old rows kept", torch.equal(new_emb.weight[:50], emb[:50]), "tied",
      model.cls["decoder"].weight is new_emb.weight)
model.eval()
with torch.no_grad():
    print("logits after resize", model(input_ids, attention_mask).logits.shape)

try:
    BertSelfAttention(BertConfig(hidden_size=30, num_attention_heads=4)).transpose_for_scores(torch.zeros(1, 2, 30))
except RuntimeError as e:
    print("RuntimeError:", e)
