"""minGPT's model.py: NewGELU, the whitelist/blacklist configure_optimizers over named_modules, _init_weights.

Sets of full parameter names, duplicate-group errors, AdamW groups and state_dict, clip_grad_norm_ options.
"""

import math

import torch
import torch.nn as nn
from torch.nn import functional as F


class NewGELU(nn.Module):
    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * torch.pow(x, 3.0))))


x = torch.linspace(-4, 4, 9, dtype=torch.float64)
print(
    NewGELU()(x),
    torch.allclose(NewGELU()(x), F.gelu(x, approximate="tanh")),
    (NewGELU()(x) - F.gelu(x)).abs().max() < 1e-3,
)
print(
    nn.GELU(approximate="tanh"), F.gelu(torch.tensor([-1.0, 0.0, 1.0])), F.gelu(torch.tensor([1.0]), approximate="none")
)
try:
    F.gelu(torch.tensor([1.0]), approximate="fast")
except RuntimeError as e:
    print(type(e).__name__, e)


class Block(nn.Module):
    def __init__(self, n_embd):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = nn.ModuleDict(dict(c_attn=nn.Linear(n_embd, 3 * n_embd), c_proj=nn.Linear(n_embd, n_embd)))
        self.mlp = nn.ModuleDict(
            dict(c_fc=nn.Linear(n_embd, 4 * n_embd), act=NewGELU(), c_proj=nn.Linear(4 * n_embd, n_embd))
        )


class GPT(nn.Module):
    def __init__(self, vocab_size=11, block_size=6, n_embd=8, n_layer=2):
        super().__init__()
        self.transformer = nn.ModuleDict(dict(
            wte=nn.Embedding(vocab_size, n_embd), wpe=nn.Embedding(block_size, n_embd), drop=nn.Dropout(0.1),
            h=nn.ModuleList([Block(n_embd) for _ in range(n_layer)]), ln_f=nn.LayerNorm(n_embd)))  # fmt: skip
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.apply(self._init_weights)
        for pn, p in self.named_parameters():
            if pn.endswith("c_proj.weight"):
                torch.nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * n_layer))
        n_params = sum(p.numel() for p in self.transformer.parameters())
        print("number of parameters: %.4fM" % (n_params / 1e6,))  # noqa: UP031

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            torch.nn.init.normal_(module.weight, mean=0.0, std=0.02)
        elif isinstance(module, nn.LayerNorm):
            torch.nn.init.zeros_(module.bias)
            torch.nn.init.ones_(module.weight)

    def configure_optimizers(self, weight_decay=0.1, learning_rate=3e-4, betas=(0.9, 0.95)):
        decay, no_decay = set(), set()
        whitelist_weight_modules = (torch.nn.Linear,)
        blacklist_weight_modules = (torch.nn.LayerNorm, torch.nn.Embedding)
        for mn, m in self.named_modules():
            for pn, p in m.named_parameters():
                fpn = "%s.%s" % (mn, pn) if mn else pn  # noqa: UP031
                if pn.endswith("bias"):
                    no_decay.add(fpn)
                elif pn.endswith("weight") and isinstance(m, whitelist_weight_modules):
                    decay.add(fpn)
                elif pn.endswith("weight") and isinstance(m, blacklist_weight_modules):
                    no_decay.add(fpn)
        param_dict = {pn: p for pn, p in self.named_parameters()}
        inter_params = decay & no_decay
        union_params = decay | no_decay
        assert len(inter_params) == 0, "parameters %s made it into both decay/no_decay sets!" % (str(inter_params),)  # noqa: UP031
        assert len(param_dict.keys() - union_params) == 0
        print(len(decay), len(no_decay), sorted(decay)[:2], sorted(no_decay)[-2:])
        optim_groups = [
            {"params": [param_dict[pn] for pn in sorted(list(decay))], "weight_decay": weight_decay},
            {"params": [param_dict[pn] for pn in sorted(list(no_decay))], "weight_decay": 0.0},
        ]
        return torch.optim.AdamW(optim_groups, lr=learning_rate, betas=betas)


torch.manual_seed(3407)
model = GPT()
print(len(list(model.named_modules())), [n for n, _ in model.named_modules()][:4], model.transformer.h[0].mlp.act)
print(round(model.transformer.h[0].attn.c_proj.weight.std().item(), 3), model.transformer.ln_f.bias.abs().sum())
opt = model.configure_optimizers()
print(len(opt.param_groups), [len(g["params"]) for g in opt.param_groups], sorted(opt.param_groups[0].keys()))
print(opt.defaults["lr"], opt.param_groups[1]["weight_decay"], opt)
idx = torch.randint(0, 11, (2, 6))
emb = model.transformer.wte(idx) + model.transformer.wpe(torch.arange(6))
for blk in model.transformer.h:
    h = blk.ln_1(emb)
    emb = emb + blk.attn.c_proj(h) + blk.mlp.c_proj(blk.mlp.act(blk.mlp.c_fc(h)))
logits = model.lm_head(model.transformer.ln_f(emb))
loss = F.cross_entropy(logits.view(-1, logits.size(-1)), idx.view(-1), ignore_index=-1)
loss.backward()
norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
print(round(loss.item(), 4), norm.dtype, norm.shape, norm > 0, model.transformer.wpe.weight.grad.shape)
opt.step()
sd = opt.state_dict()
print(sorted(sd.keys()), sorted(sd["state"][0].keys()), sd["state"][0]["step"], sd["param_groups"][0]["params"][:3])
print(sd["param_groups"][1]["params"][:3], len(sd["state"]))
for bad in (
    lambda: torch.optim.AdamW([{"params": [model.lm_head.weight]}, {"params": [model.lm_head.weight]}]),
    lambda: torch.optim.AdamW([], lr=1e-3),
    lambda: torch.optim.AdamW(model.parameters(), lr=-1.0),
    lambda: torch.optim.AdamW(model.parameters(), betas=(0.9, 1.0)),
    lambda: torch.optim.AdamW(model.parameters(), weight_decay=-0.1),
    lambda: torch.optim.AdamW(model.lm_head.weight),
):
    try:
        bad()
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
model.lm_head.weight.grad = torch.full_like(model.lm_head.weight, float("nan"))
try:
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=True)
except RuntimeError as e:
    print(type(e).__name__, str(e)[:90])
print(torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, norm_type="inf"), torch.nn.utils.clip_grad_norm_([], 1.0))
print(torch.nn.utils.clip_grad_norm_(model.transformer.wte.parameters(), 1.0, norm_type=1.0, foreach=False) >= 0)
