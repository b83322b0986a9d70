"""Module bookkeeping answers: tied weights counted once (and twice with remove_duplicate=False), shared
submodules in named_modules, state_dict keys and keep_vars, get_submodule/get_parameter errors, apply order,
register_* refusals, Sequential indexing, pre-hooks, and the reprs people paste into questions."""

import torch
import torch.nn as nn


def catch(name, fn):
    try:
        out = fn()
        print(name, "ok", out)
    except (RuntimeError, ValueError, TypeError, IndexError, KeyError, AttributeError) as e:
        print(name, type(e).__name__, str(e).splitlines()[0] if str(e) else "")


class Tied(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(5, 3)
        self.out = nn.Linear(3, 5, bias=False)
        self.out.weight = self.emb.weight
        self.block = nn.Sequential(nn.Linear(3, 3), nn.LayerNorm(3))
        self.again = self.block


m = Tied()
catch("count", lambda: sum(p.numel() for p in m.parameters()))
catch("named_dup", lambda: [n for n, _ in m.named_parameters(remove_duplicate=False)])
catch("named", lambda: [n for n, _ in m.named_parameters()])
catch("modules", lambda: [n for n, _ in m.named_modules()])
catch("modules_dup", lambda: [n for n, _ in m.named_modules(remove_duplicate=False)])
catch("children", lambda: [n for n, _ in m.named_children()])
catch("sd", lambda: list(m.state_dict()))
catch("sd_keep", lambda: [type(v).__name__ for v in m.state_dict(keep_vars=True).values()][:2])
catch("prefix", lambda: [n for n, _ in m.block.named_parameters(prefix="enc")])
catch("norecurse", lambda: [n for n, _ in m.named_parameters(recurse=False)])
catch("submod", lambda: m.get_submodule("block.1"))
catch("submod_bad", lambda: m.get_submodule("block.7"))
catch("submod_bad2", lambda: m.get_submodule("blok"))
catch("getparam", lambda: m.get_parameter("block.0.bias").shape)
catch("getparam_bad", lambda: m.get_parameter("block.0.bia"))
catch("getparam_mod", lambda: m.get_parameter("block.0"))
catch("getbuf_bad", lambda: m.get_buffer("emb.weight"))
order = []
m.apply(lambda mod: order.append(type(mod).__name__))
print("apply_order", order)
catch("req", lambda: type(m.requires_grad_(False)).__name__)
catch("frozen", lambda: sum(p.requires_grad for p in m.parameters()))
catch("setattr_param", lambda: setattr(m, "w", torch.ones(2)) or ("w" in dict(m.named_parameters())))
catch("param_assign_tensor", lambda: setattr(m.block[0], "weight", torch.ones(3, 3)))
catch("register_param_bad", lambda: m.register_parameter("p", torch.ones(2)))
catch("register_buffer_bad", lambda: m.register_buffer("b", [1]))
catch("register_dot", lambda: m.register_buffer("a.b", torch.ones(1)))
catch("add_module_bad", lambda: m.add_module("x", 5))
catch("seq_index", lambda: m.block[-1])
catch("seq_slice", lambda: m.block[0:1])
catch("seq_oob", lambda: m.block[5])
catch("seq_append", lambda: len(nn.Sequential().append(nn.ReLU())))
catch("modlist_bad", lambda: nn.ModuleList([nn.ReLU(), 5]))
h = m.block.register_forward_pre_hook(lambda mod, inp: (inp[0] * 0,))
with torch.no_grad():
    m.block[0].bias.copy_(torch.tensor([0.5, -1.0, 2.0]))
    m.block[1].bias.copy_(torch.tensor([1.0, 2.0, 4.0]))
print("pre_hook", m.block(torch.ones(1, 3)), type(h).__name__)
h.remove()
catch("del_attr", lambda: (delattr(m, "again"), [n for n, _ in m.named_children()])[1])
catch("nosuch", lambda: m.foo)
catch("zero_grad_none", lambda: (m.zero_grad(), m.emb.weight.grad)[1])
catch("train_ret", lambda: m.train(False) is m)
catch("train_bad", lambda: m.train("yes"))
catch("extra_repr", lambda: nn.Linear(2, 3).extra_repr())
catch("ln_repr", lambda: repr(nn.LayerNorm((3, 4), elementwise_affine=False)))
catch("emb_repr", lambda: repr(nn.Embedding(5, 3, max_norm=1.0, sparse=True)))
catch("dict_sd_type", lambda: type(m.state_dict()).__name__)
catch("sd_meta", lambda: getattr(m.state_dict(), "_metadata", {}).get("block"))
