"""Module and optimizer bookkeeping mistakes: optimizers given non-leaf tensors, empty or duplicate parameters, a
generator consumed twice, bad hyper-parameters and param-group keys; Module attribute errors, forgetting
super().__init__(), register_buffer/register_parameter/add_module name clashes, assigning a Tensor over a Parameter,
and the fixes, each printed as type(e).__name__ and the whole message."""

import torch
import torch.nn as nn

torch.manual_seed(3)
torch.set_printoptions(precision=4)


def show(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return None
    print(f"{name}: ok {out}")
    return out


model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))

# --- optimizers ---------------------------------------------------------------------------------------------
w = torch.randn(3, requires_grad=True)
show("sgd_nonleaf", lambda: torch.optim.SGD([w * 2], lr=0.1))
show("sgd_no_grad_tensor", lambda: torch.optim.SGD([torch.randn(3)], lr=0.1) and "built")
show("adam_empty", lambda: torch.optim.Adam([], lr=0.1))
gen = model.parameters()
list(gen)
show("adam_consumed_generator", lambda: torch.optim.Adam(gen))
show("sgd_tensor_not_list", lambda: torch.optim.SGD(w, lr=0.1))
show("sgd_duplicate", lambda: len(torch.optim.SGD([w, w], lr=0.1).param_groups[0]["params"]))
show("sgd_two_groups_same",
     lambda: torch.optim.SGD([{"params": model[0].parameters()}, {"params": model.parameters()}], lr=0.1))
show("sgd_lr_negative", lambda: torch.optim.SGD(model.parameters(), lr=-0.1))
show("sgd_momentum_negative", lambda: torch.optim.SGD(model.parameters(), lr=0.1, momentum=-0.5))
show("sgd_nesterov_no_momentum", lambda: torch.optim.SGD(model.parameters(), lr=0.1, nesterov=True))
show("sgd_weight_decay", lambda: torch.optim.SGD(model.parameters(), lr=0.1, weight_decay=-1e-4))
show("adam_beta", lambda: torch.optim.Adam(model.parameters(), betas=(0.9, 1.0)))
show("adam_beta0", lambda: torch.optim.Adam(model.parameters(), betas=(-0.1, 0.999)))
show("adam_eps", lambda: torch.optim.Adam(model.parameters(), eps=-1e-8))
show("adamw_lr", lambda: torch.optim.AdamW(model.parameters(), lr=-1.0))
show("rmsprop_alpha", lambda: torch.optim.RMSprop(model.parameters(), alpha=-0.5))
show("adagrad_decay", lambda: torch.optim.Adagrad(model.parameters(), lr_decay=-1))
show("adam_lr_tensor_ok", lambda: torch.optim.Adam(model.parameters(), lr=torch.tensor(0.01)).param_groups[0]["lr"])
show("group_no_params", lambda: torch.optim.SGD([{"lr": 0.1}], lr=0.1))
show("group_nonleaf", lambda: torch.optim.SGD([{"params": [w * 3]}], lr=0.1))

opt = torch.optim.SGD(model[0].parameters(), lr=0.1)
show("add_group_overlap", lambda: opt.add_param_group({"params": model.parameters()}))
show("add_group_ok",
     lambda: opt.add_param_group({"params": model[2].parameters(), "lr": 0.01}) or len(opt.param_groups))
show("add_group_not_dict", lambda: opt.add_param_group([w]))
print("groups", [(len(g["params"]), g["lr"], g["momentum"]) for g in opt.param_groups])

x, y = torch.randn(8, 3), torch.randn(8, 1)
loss = ((model(x) - y) ** 2).mean()
show("step_without_backward", lambda: opt.step())
loss.backward()
before = model[2].bias.detach().clone()
opt.step()
print("bias moved", torch.round(model[2].bias.detach() - before, decimals=4))
show("closure_required_lbfgs", lambda: torch.optim.LBFGS(model.parameters()).step())
show("zero_grad_none", lambda: opt.zero_grad() or model[0].weight.grad)
show("zero_grad_keep", lambda: opt.zero_grad(set_to_none=False) or model[0].weight.grad.abs().sum().item())

sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2)
show("sched_bad_optimizer", lambda: torch.optim.lr_scheduler.StepLR(model, step_size=2))
show("sched_lambda_count", lambda: torch.optim.lr_scheduler.LambdaLR(opt, [lambda e: 1.0]))
show("onecycle_no_total", lambda: torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.1))
show("plateau_mode", lambda: torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="maximum"))
show("cosine_ok", lambda: torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10).get_last_lr())

# --- module attributes --------------------------------------------------------------------------------------


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.register_buffer("scale", torch.tensor(2.0))

    def forward(self, x):
        return self.proj(x) * self.scale


enc = Encoder()
show("missing_attr", lambda: enc.projection)
show("missing_attr_getattr", lambda: getattr(enc, "dropout"))
show("getattr_default", lambda: getattr(enc, "dropout", None))
show("hasattr", lambda: (hasattr(enc, "proj"), hasattr(enc, "nope"), hasattr(enc, "scale")))
show("missing_submodule", lambda: enc.get_submodule("proj.inner"))
show("missing_submodule_top", lambda: enc.get_submodule("decoder"))
show("get_parameter_missing", lambda: enc.get_parameter("proj.gain"))
show("get_parameter_buffer", lambda: enc.get_parameter("scale"))
show("get_buffer_param", lambda: enc.get_buffer("proj.weight"))
show("get_buffer_ok", lambda: enc.get_buffer("scale"))
show("seq_index", lambda: model[5])
show("seq_neg_index", lambda: type(model[-1]).__name__)
show("modulelist_index", lambda: nn.ModuleList([nn.ReLU()])[1])
show("moduledict_key", lambda: nn.ModuleDict({"act": nn.ReLU()})["norm"])
show("paramdict_key", lambda: nn.ParameterDict({"a": nn.Parameter(torch.ones(1))})["b"])


class NoSuper(nn.Module):
    def __init__(self):
        self.lin = nn.Linear(2, 2)


show("forgot_super", NoSuper)


class NoForward(nn.Module):
    pass


show("forgot_forward", lambda: NoForward()(torch.ones(1)))

# --- registration clashes -----------------------------------------------------------------------------------
m = Encoder()
show("buffer_over_param", lambda: m.proj.register_buffer("weight", torch.ones(4, 4)))
show("buffer_over_module", lambda: m.register_buffer("proj", torch.ones(1)))
show("buffer_existing_attr", lambda: m.register_buffer("training", torch.ones(1)))
show("buffer_dotted", lambda: m.register_buffer("a.b", torch.ones(1)))
show("buffer_empty_name", lambda: m.register_buffer("", torch.ones(1)))
show("buffer_not_tensor", lambda: m.register_buffer("k", [1.0]))
show("buffer_name_type", lambda: m.register_buffer(3, torch.ones(1)))
show("buffer_replace_ok", lambda: m.register_buffer("scale", torch.tensor(3.0)) or m.scale)
show("param_over_buffer", lambda: m.register_parameter("scale", nn.Parameter(torch.ones(1))))
show("param_over_module", lambda: m.register_parameter("proj", nn.Parameter(torch.ones(1))))
show("param_not_parameter", lambda: m.register_parameter("gain", torch.ones(1)))
show("param_dotted", lambda: m.register_parameter("g.h", nn.Parameter(torch.ones(1))))
show("param_none_ok", lambda: m.register_parameter("gain", None) or m.gain)
show("module_over_param", lambda: m.proj.add_module("weight", nn.ReLU()))
show("module_not_module", lambda: m.add_module("act", torch.relu))
show("module_dotted", lambda: m.add_module("act.fn", nn.ReLU()))
show("assign_tensor_over_param", lambda: setattr(m.proj, "bias", torch.zeros(4)))
show("assign_param_ok", lambda: setattr(m.proj, "bias", nn.Parameter(torch.zeros(4))) or m.proj.bias.shape)
show("assign_module_over_param", lambda: setattr(m.proj, "weight", nn.Linear(1, 1)))
show("assign_none_param", lambda: setattr(m.proj, "bias", None) or m.proj.bias)
show("assign_buffer_tensor_ok", lambda: setattr(m, "scale", torch.tensor(5.0)) or m.scale)
show("assign_buffer_list", lambda: setattr(m, "scale", [5.0]))
print("names", [n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()])
show("delete_param", lambda: delattr(m.proj, "weight") or [n for n, _ in m.proj.named_parameters()])
show("delete_missing", lambda: delattr(m, "nothing"))
show("requires_grad_int_param", lambda: nn.Parameter(torch.ones(2, dtype=torch.int64)))
show("train_bool", lambda: m.train("yes"))
show("to_bad_dtype", lambda: m.to(torch.int32))
show("apply_ok", lambda: sum(1 for _ in m.modules()))
