"""Library plumbing from torch.utils that real code imports: a per-parameter metadata cache keyed weakly by tensor
identity (torch.utils.weak), reproducibility switches (torch.utils.deterministic under deterministic algorithms),
and the old torch.utils.model_zoo entry point that pretrained-model code still calls."""
import gc

import torch
import torch.utils.deterministic as deterministic
from torch.utils import model_zoo
from torch.utils.weak import TensorWeakRef, WeakIdKeyDictionary, WeakIdRef, WeakTensorKeyDictionary

nn = torch.nn
torch.manual_seed(0)


class StepCounter:
    """Counts optimizer steps per parameter without keeping dropped parameters alive."""

    def __init__(self):
        self.steps = WeakTensorKeyDictionary()

    def update(self, params):
        for p in params:
            self.steps[p] = self.steps.get(p, 0) + 1


model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
counter = StepCounter()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 4), torch.randn(8, 2)
for step in range(3):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    counter.update(p for p in model.parameters() if p.grad is not None)
    print("step", step, round(loss.item(), 4))
print("tracked", len(counter.steps), sorted(counter.steps.values()))
print("equal tensors are distinct keys:", torch.ones(2) in counter.steps, model[0].weight in counter.steps)

model[2] = nn.Linear(3, 2)
gc.collect()
print("after replacing a layer", len(counter.steps))

a = torch.arange(3.0)
ref = TensorWeakRef(a)
print("weakref alive", ref() is a)
del a
gc.collect()
print("weakref dead", ref())
k = torch.zeros(1)
print("WeakIdRef", WeakIdRef(k) == WeakIdRef(k), hash(WeakIdRef(k)) == id(k))
d = WeakIdKeyDictionary({k: "k"})
print("copy", d.copy()[k], d == {k: "k"}, WeakTensorKeyDictionary is WeakIdKeyDictionary)
try:
    TensorWeakRef([1, 2])
except AssertionError as e:
    print("AssertionError", e)

print("-- deterministic mode")
print("fill default", deterministic.fill_uninitialized_memory)
torch.use_deterministic_algorithms(True)
print(torch.are_deterministic_algorithms_enabled(), torch.empty(3), torch.empty(2, dtype=torch.int32))
print(torch.empty_like(torch.ones(2, dtype=torch.uint8)), torch.ones(2).new_empty(2, dtype=torch.bool))
print(torch.empty(2, dtype=torch.complex64), torch.empty(2, dtype=torch.float16))
try:
    torch.empty(2, dtype=torch.uint4)
except NotImplementedError as e:
    print("NotImplementedError", e)
deterministic.fill_uninitialized_memory = False
print("fill off", deterministic.fill_uninitialized_memory, torch.empty(2, dtype=torch.uint4).dtype)
try:
    deterministic.fill_uninitialized_memory = "yes"
except RuntimeError as e:
    print("RuntimeError", e)
deterministic.fill_uninitialized_memory = True
torch.use_deterministic_algorithms(False)
print(torch.are_deterministic_algorithms_enabled())

print("-- model_zoo")
print(model_zoo.load_url is torch.hub.load_state_dict_from_url, model_zoo.load_url.__name__)
