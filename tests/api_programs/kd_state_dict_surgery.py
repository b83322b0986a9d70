"""Checkpoint surgery for fine-tuning: prefixes, strict=False results, load hooks and _load_from_state_dict."""

import collections
import torch

nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.stem = nn.Conv2d(3, 4, 3)
        self.bn = nn.BatchNorm2d(4)
        self.fc = nn.Linear(4, 10)

    def forward(self, x):
        return self.fc(F.relu(self.bn(self.stem(x))).mean((2, 3)))


src = Backbone()
ckpt = {"module." + k: v for k, v in src.state_dict().items()}
print(list(ckpt)[:3], len(ckpt))
nn.modules.utils.consume_prefix_in_state_dict_if_present(ckpt, "module.")
print(list(ckpt)[:3], type(ckpt).__name__)


# new head with another number of classes
class FineTune(Backbone):
    def __init__(self, n):
        super().__init__()
        self.fc = nn.Linear(4, n)
        self.extra = nn.Linear(n, n)


dst = FineTune(3)
try:
    dst.load_state_dict(ckpt)
except Exception as e:
    print(type(e).__name__, e)
filtered = {k: v for k, v in ckpt.items() if not k.startswith("fc.")}
res = dst.load_state_dict(filtered, strict=False)
print(res)
print(res.missing_keys, res.unexpected_keys, type(res).__name__)
print("stem copied", torch.equal(dst.stem.weight, src.stem.weight))
filtered["bogus.weight"] = torch.zeros(1)
print(dst.load_state_dict(filtered, strict=False))
missing, unexpected = dst.load_state_dict(filtered, strict=False)
print(len(missing), unexpected)


# post hook cleans the result, pre hook renames old keys
class Renamed(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(2, 2)
        self.register_buffer("step", torch.tensor(0))

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        old = prefix + "linear.weight"
        if old in state_dict:
            state_dict[prefix + "proj.weight"] = state_dict.pop(old)
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )


wrap = nn.Sequential(Renamed())
calls = []


def post_hook(module, incompatible):
    calls.append(list(incompatible.missing_keys))
    incompatible.missing_keys.clear()


wrap[0].register_load_state_dict_post_hook(post_hook)
old = collections.OrderedDict([("0.linear.weight", torch.eye(2)), ("0.proj.bias", torch.ones(2))])
print(wrap.load_state_dict(old, strict=True), calls)
print(wrap[0].proj.weight.tolist(), "metadata", hasattr(wrap.state_dict(), "_metadata"))


def pre_hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs):
    for k in list(state_dict):
        if k.startswith(prefix + "legacy_"):
            state_dict[prefix + k[len(prefix) + 7 :]] = state_dict.pop(k)


m = nn.Linear(2, 2)
m._register_load_state_dict_pre_hook(pre_hook, with_module=True)
print(m.load_state_dict({"legacy_weight": torch.full((2, 2), 3.0), "legacy_bias": torch.zeros(2)}))
print(m.weight.sum().item())
m2 = nn.Linear(2, 2)
h = m2.register_load_state_dict_pre_hook(pre_hook)
print(m2.load_state_dict({"legacy_weight": torch.ones(2, 2), "bias": torch.zeros(2)}), m2.weight.sum().item())
h.remove()
print(m2.load_state_dict({"legacy_weight": torch.ones(2, 2), "bias": torch.zeros(2)}, strict=False))

# state_dict options
sd = src.state_dict(prefix="net.", keep_vars=True)
print(list(sd)[:2], type(sd["net.stem.weight"]).__name__, sd["net.bn.num_batches_tracked"].dtype)
print([k for k in src.state_dict() if "bn" in k])

# size mismatch and dtype casting
bad = dict(src.state_dict())
bad["stem.weight"] = torch.zeros(4, 3, 5, 5)
try:
    src.load_state_dict(bad)
except Exception as e:
    print(type(e).__name__, e)
half = {k: v.double() if v.is_floating_point() else v for k, v in src.state_dict().items()}
src.load_state_dict(half)
print("dtype kept", src.stem.weight.dtype)
src.load_state_dict(half, assign=True)
print("assign dtype", src.stem.weight.dtype, type(src.stem.weight).__name__, src.stem.weight.requires_grad)
try:
    src.load_state_dict([1, 2])
except Exception as e:
    print(type(e).__name__, e)
try:
    nn.Linear(2, 2).load_state_dict({"weight": torch.zeros(2, 2)})
except Exception as e:
    print(type(e).__name__, e)
