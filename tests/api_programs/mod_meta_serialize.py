"""Large-model loading code: construct on the meta device, to_empty and reset_parameters, torch.save/torch.load of
state into io.BytesIO with weights_only=True and map_location, add_safe_globals/safe_globals for custom types,
and views that share storage surviving a round trip."""

import dataclasses
import io
import warnings

import torch
from torch import nn

torch.manual_seed(7)
torch.set_printoptions(precision=4)


class MLP(nn.Module):
    def __init__(self, d=4, h=6):
        super().__init__()
        self.fc1 = nn.Linear(d, h)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(h, d)
        self.register_buffer("mask", torch.ones(h))

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)) * self.mask)


with torch.device("meta"):
    big = MLP()
print("meta", big.fc1.weight.device, big.fc1.weight.shape, big.fc1.weight.is_meta, big.mask.is_meta)
print(repr(big.fc1.weight)[:60])
out = big(torch.empty(2, 4, device="meta"))
print("meta forward", out.shape, out.device)
try:
    big.fc1.weight.sum().item()
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])

m2 = nn.Linear(3, 2, device="meta")
print(m2.weight.device, m2.bias.shape)

try:
    big.to("cpu")
except NotImplementedError as e:
    print("NotImplementedError", e)
big.to_empty(device="cpu")
print("after to_empty", big.fc1.weight.device, big.fc1.weight.requires_grad, type(big.fc1.weight).__name__)
torch.manual_seed(8)
for m in big.modules():
    if hasattr(m, "reset_parameters"):
        m.reset_parameters()
with torch.no_grad():
    big.mask.fill_(1.0)
print("fc1 row0", big.fc1.weight[0])
torch.manual_seed(8)
ref = MLP()
print("same as eager init", torch.equal(ref.fc1.weight, big.fc1.weight), torch.equal(ref.fc2.bias, big.fc2.bias))

# a meta model filled by load_state_dict(assign=True)
with torch.device("meta"):
    shell = MLP()
print(shell.load_state_dict(ref.state_dict(), assign=True))
print("assigned device", shell.fc1.weight.device, shell.fc1.weight.requires_grad, shell.mask.device)
x = torch.randn(3, 4)
print("outputs equal", torch.equal(shell(x), ref(x)))
with torch.device("meta"):
    shell2 = MLP()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    shell2.load_state_dict(ref.state_dict())
print(len(caught), caught[0].category.__name__, str(caught[0].message))
print("copy into meta stays meta", shell2.fc1.weight.is_meta)

# save / load through BytesIO
buf = io.BytesIO()
torch.save({"model": ref.state_dict(), "step": 12, "lr": 0.01, "names": ["a", "b"]}, buf)
print("bytes > 0", buf.tell() > 0)
buf.seek(0)
ck = torch.load(buf, weights_only=True, map_location="cpu")
print(sorted(ck), ck["step"], ck["lr"], ck["names"])
print(type(ck["model"]).__name__, list(ck["model"].keys()))
print("roundtrip", all(torch.equal(ck["model"][k], v) for k, v in ref.state_dict().items()))
buf.seek(0)
ck2 = torch.load(buf, map_location=lambda storage, loc: storage, weights_only=True)
print("map_location fn", ck2["model"]["fc2.bias"])
buf.seek(0)
ck3 = torch.load(buf, map_location={"cpu": "cpu"}, weights_only=True)
print("map dict", ck3["model"]["mask"].device)


@dataclasses.dataclass
class TrainConfig:
    lr: float
    layers: int


buf = io.BytesIO()
torch.save({"cfg": TrainConfig(0.1, 3), "w": torch.arange(3.0)}, buf)
buf.seek(0)
try:
    torch.load(buf, weights_only=True)
except Exception as e:
    print(type(e).__name__, "TrainConfig" in str(e))
buf.seek(0)
with torch.serialization.safe_globals([TrainConfig]):
    got = torch.load(buf, weights_only=True)
print(got["cfg"], got["w"])
print("inside?", TrainConfig in torch.serialization.get_safe_globals())
torch.serialization.add_safe_globals([TrainConfig])
buf.seek(0)
print(torch.load(buf, weights_only=True)["cfg"].layers)
print("now global", TrainConfig in torch.serialization.get_safe_globals())
torch.serialization.clear_safe_globals()
print("cleared", torch.serialization.get_safe_globals())

# views that share storage keep sharing after a round trip
base = torch.arange(12.0)
views = {"base": base, "head": base[:4], "grid": base.view(3, 4), "col": base.view(3, 4)[:, 1]}
buf = io.BytesIO()
torch.save(views, buf)
buf.seek(0)
v2 = torch.load(buf, weights_only=True)
v2["base"][1] = 100.0
print(v2["head"], v2["grid"][0], v2["col"])
print("col stride", v2["col"].stride(), v2["col"].storage_offset(), v2["col"].is_contiguous())
print("shared", v2["grid"].untyped_storage().data_ptr() == v2["base"].untyped_storage().data_ptr())

# a parameter and its view inside a state dict
lin = nn.Linear(2, 2)
sd = {"w": lin.weight, "row": lin.weight[0]}
buf = io.BytesIO()
torch.save(sd, buf)
buf.seek(0)
l2 = torch.load(buf, weights_only=True)
print(type(l2["w"]).__name__, l2["w"].requires_grad, l2["row"].requires_grad, l2["row"]._base is None)

# dtypes and sizes survive
buf = io.BytesIO()
torch.save([torch.tensor([1, 2], dtype=torch.int16), torch.tensor([True, False]), torch.zeros(0, 3),
            torch.tensor(2.5, dtype=torch.float64), torch.tensor([1 + 2j])], buf)
buf.seek(0)
for t in torch.load(buf, weights_only=True):
    print(t.dtype, tuple(t.shape), t.tolist())
