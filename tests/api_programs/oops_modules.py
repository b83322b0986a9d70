"""Module bookkeeping mistakes: load_state_dict with missing, unexpected and mis-sized keys (strict and not, and the
NamedTuple it returns), register_buffer/register_parameter name clashes, attribute typos, Parameters from int
tensors, Sequential/ModuleList/ModuleDict misuse, a module without forward, and the hooks and modes people misuse."""

from collections import OrderedDict

import torch
import torch.nn as nn


def oops(name, fn):
    try:
        out = fn()
    except Exception as e:
        print(f"{name}: {type(e).__name__}: {e}")
        return
    if isinstance(out, torch.Tensor):
        print(f"{name}: ok {tuple(out.shape)} {out.dtype}")
    else:
        print(f"{name}: ok {out}")


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(4, 3)
        self.bn = nn.BatchNorm1d(3)
        self.fc2 = nn.Linear(3, 2)

    def forward(self, x):
        return self.fc2(torch.relu(self.bn(self.fc1(x))))


net = Net()
sd = net.state_dict()
print(list(sd))

# load_state_dict
missing = OrderedDict((k, v) for k, v in sd.items() if not k.startswith("fc2"))
oops("missing_strict", lambda: Net().load_state_dict(missing))
oops("missing_loose", lambda: Net().load_state_dict(missing, strict=False))
extra = OrderedDict(sd)
extra["head.weight"] = torch.zeros(2, 2)
oops("unexpected_strict", lambda: Net().load_state_dict(extra))
r = Net().load_state_dict(extra, strict=False)
print("result", type(r).__name__, r.missing_keys, r.unexpected_keys, r)
both = OrderedDict(missing)
both["fc3.bias"] = torch.zeros(2)
oops("both_strict", lambda: Net().load_state_dict(both))
resized = OrderedDict(sd)
resized["fc2.weight"] = torch.zeros(5, 3)
resized["fc2.bias"] = torch.zeros(5)
oops("size_mismatch", lambda: Net().load_state_dict(resized))
oops("size_mismatch_loose", lambda: Net().load_state_dict(resized, strict=False))
oops("prefixed", lambda: Net().load_state_dict(OrderedDict(("module." + k, v) for k, v in sd.items())))
oops("not_a_mapping", lambda: Net().load_state_dict([("fc1.weight", torch.zeros(3, 4))]))
oops("model_not_dict", lambda: Net().load_state_dict(net))
oops("value_not_tensor", lambda: nn.Linear(2, 2).load_state_dict({"weight": [[1.0, 0.0], [0.0, 1.0]],
                                                                   "bias": torch.zeros(2)}))
oops("dtype_cast_ok", lambda: nn.Linear(2, 2).load_state_dict({"weight": torch.eye(2, dtype=torch.float64),
                                                                "bias": torch.zeros(2, dtype=torch.float16)}))
oops("assign_ok", lambda: nn.Linear(2, 2).load_state_dict({"weight": torch.eye(2), "bias": torch.zeros(2)},
                                                          assign=True))
oops("optimizer_sd_into_model", lambda: net.load_state_dict(torch.optim.SGD(net.parameters(), lr=0.1).state_dict()))

# register_* clashes
m = nn.Linear(2, 2)
oops("buffer_over_param", lambda: m.register_buffer("weight", torch.zeros(2, 2)))
oops("param_over_attr", lambda: m.register_parameter("training", nn.Parameter(torch.zeros(1))))
oops("param_not_param", lambda: m.register_parameter("scale", torch.ones(1)))
oops("buffer_not_tensor", lambda: m.register_buffer("table", [1, 2]))
oops("buffer_dot_name", lambda: m.register_buffer("a.b", torch.ones(1)))
oops("buffer_empty_name", lambda: m.register_buffer("", torch.ones(1)))
oops("param_dot_name", lambda: m.register_parameter("a.b", nn.Parameter(torch.ones(1))))
oops("buffer_name_type", lambda: m.register_buffer(3, torch.ones(1)))
oops("module_dot_name", lambda: m.add_module("a.b", nn.ReLU()))
oops("module_not_module", lambda: m.add_module("act", nn.ReLU))
oops("module_over_param", lambda: m.add_module("weight", nn.ReLU()))
oops("buffer_ok", lambda: m.register_buffer("steps", torch.tensor(0)) or sorted(dict(m.named_buffers())))
oops("assign_tensor_to_param", lambda: setattr(m, "weight", torch.zeros(2, 2)))
oops("assign_param_ok", lambda: setattr(m, "weight", nn.Parameter(torch.zeros(2, 2))) or m.weight.shape)
oops("assign_none_param", lambda: setattr(m, "bias", None) or m.bias)
oops("assign_module_to_buffer", lambda: setattr(m, "steps", nn.ReLU()))
oops("assign_int_to_buffer", lambda: setattr(m, "steps", 5))

# attributes
oops("typo_attr", lambda: net.fc3)
oops("typo_layer_attr", lambda: net.fc1.weights)
oops("typo_method", lambda: net.paramters())
oops("delattr_missing", lambda: delattr(net, "fc9"))
oops("get_submodule", lambda: net.get_submodule("fc1.foo"))
oops("get_submodule_not_module", lambda: net.get_submodule("fc1.weight"))
oops("get_parameter", lambda: net.get_parameter("fc1.scale"))
oops("get_parameter_ok", lambda: net.get_parameter("bn.weight"))
oops("get_buffer_of_param", lambda: net.get_buffer("fc1.weight"))
oops("get_buffer_ok", lambda: net.get_buffer("bn.running_mean"))

# Parameters
oops("param_long", lambda: nn.Parameter(torch.tensor([1, 2])))
oops("param_bool", lambda: nn.Parameter(torch.tensor([True])))
oops("param_list", lambda: nn.Parameter([1.0, 2.0]))
oops("param_frozen_long", lambda: nn.Parameter(torch.tensor([1, 2]), requires_grad=False))
oops("param_repr", lambda: repr(nn.Parameter(torch.tensor([1.0, -2.0]))))
oops("param_of_param", lambda: type(nn.Parameter(nn.Parameter(torch.ones(1)))).__name__)

# containers
seq = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
oops("seq_oob", lambda: seq[3])
oops("seq_neg_oob", lambda: seq[-4])
oops("seq_slice", lambda: seq[1:])
oops("seq_str_key", lambda: seq["0"])
oops("seq_float_key", lambda: seq[1.0])
oops("seq_wrong_input", lambda: seq(torch.ones(2, 3)))
oops("seq_two_inputs", lambda: seq(torch.ones(2, 4), torch.ones(2, 4)))
oops("seq_not_module", lambda: nn.Sequential(nn.ReLU(), torch.relu))
oops("seq_class_not_instance", lambda: nn.Sequential(nn.Linear(2, 2), nn.ReLU))
oops("seq_functional", lambda: nn.Sequential(nn.Linear(2, 2), nn.functional.relu))
oops("seq_list", lambda: nn.Sequential([nn.ReLU(), nn.Tanh()]))
oops("seq_unpacked_ok", lambda: len(nn.Sequential(*[nn.ReLU(), nn.Tanh()])))
oops("seq_del_oob", lambda: seq.__delitem__(5))
oops("seq_setitem_oob", lambda: seq.__setitem__(7, nn.ReLU()))
oops("seq_pop_ok", lambda: nn.Sequential(nn.ReLU(), nn.Tanh()).pop(1))
oops("modlist_not_module", lambda: nn.ModuleList([nn.ReLU(), "relu"]))
oops("modlist_append", lambda: nn.ModuleList().append(torch.ones(1)))
oops("modlist_oob", lambda: nn.ModuleList([nn.ReLU()])[1])
oops("modlist_call", lambda: nn.ModuleList([nn.ReLU()])(torch.ones(1)))
oops("moddict_key", lambda: nn.ModuleDict({"a": nn.ReLU()})["b"])
oops("moddict_int_key", lambda: nn.ModuleDict({1: nn.ReLU()}))
oops("moddict_not_module", lambda: nn.ModuleDict({"a": 3}))
oops("paramlist_tensor", lambda: type(nn.ParameterList([torch.ones(1)])[0]).__name__)
oops("paramdict_key", lambda: nn.ParameterDict({"w": nn.Parameter(torch.ones(1))})["v"])


# forward, modes, hooks
class NoForward(nn.Module):
    pass


class Forgot(nn.Module):
    def __init__(self):
        self.fc = nn.Linear(2, 2)


oops("no_forward", lambda: NoForward()(torch.ones(1)))
oops("forgot_super", lambda: Forgot())
oops("train_not_bool", lambda: net.train("eval"))
oops("eval_returns", lambda: type(net.eval()).__name__)
oops("requires_grad_not_bool", lambda: net.requires_grad_(0).fc1.weight.requires_grad)
oops("to_bad", lambda: net.to("cpux"))
oops("to_int_dtype", lambda: net.to(torch.int64))
oops("apply_not_callable", lambda: net.apply(3))
oops("hook_not_callable", lambda: type(net.register_forward_hook(3)).__name__)
oops("zero_grad_ok", lambda: net.zero_grad())
