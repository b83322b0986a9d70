"""Copying and pickling as experiment code does it: pickle.dumps/loads of tensors (dtype, views, requires_grad,
Parameters with grads, numpy arrays next to tensors in one results dict), copy.copy vs copy.deepcopy of
tensors (memo keeps views of one storage together), deepcopy of modules with tied and repeated submodules
(shared parameters stay shared), deepcopy of an optimizer's state, the error for a non-leaf deepcopy, and an
EMA teacher made by deepcopy that drifts from the student."""

import copy
import pickle

import numpy as np
import torch
import torch.nn as nn

torch.set_printoptions(precision=4)
torch.manual_seed(0)


def attempt(name, fn):
    try:
        print(name, fn())
    except Exception as e:
        print(name, f"{type(e).__name__}: {str(e).splitlines()[0][:110]}")


print("-- pickle round trips")
for t in [torch.arange(4.0), torch.tensor([1, 2], dtype=torch.int16), torch.tensor([True, False]),
          torch.tensor([1.5], dtype=torch.float16), torch.tensor([1.0], dtype=torch.bfloat16),
          torch.tensor([1 + 2j]), torch.tensor(3.25), torch.zeros(0, 3)]:
    r = pickle.loads(pickle.dumps(t))
    print(type(r).__name__, r.dtype, tuple(r.shape), r.tolist(), torch.equal(r, t))
base = torch.arange(12.0).view(3, 4)
view = base[1:, ::2]
r = pickle.loads(pickle.dumps(view))
print("view", r.tolist(), r.stride(), r.storage_offset(), r.is_contiguous())
g = torch.ones(3, requires_grad=True)
r = pickle.loads(pickle.dumps(g))
print("requires_grad leaf", r.requires_grad, r.is_leaf, r.grad_fn)
p = nn.Parameter(torch.tensor([0.5, -0.5]))
p.grad = torch.tensor([0.1, 0.2])
r = pickle.loads(pickle.dumps(p))
print("parameter", type(r).__name__, r.requires_grad, r.grad)
nl = g * 2
attempt("non-leaf pickles", lambda: pickle.loads(pickle.dumps(nl)).requires_grad)
results = {"epoch": np.int64(3), "loss": np.float32(0.25), "pred": torch.tensor([0, 2, 1]),
           "probs": np.array([[0.1, 0.9]], dtype=np.float32), "lr": 1e-3, "hist": [torch.tensor(0.5)]}
back = pickle.loads(pickle.dumps(results))
for k, v in back.items():
    print(" ", k, type(v).__name__, v.dtype if hasattr(v, "dtype") else "", v.tolist() if hasattr(v, "tolist") else v)
print("numpy of unpickled", back["pred"].numpy().dtype, back["hist"][0].item())

print("-- copy.copy and copy.deepcopy of tensors")
x = torch.arange(6.0)
shallow = copy.copy(x)
shallow[0] = 100.0
print("copy.copy shares", x[0].item(), shallow is x)
deep = copy.deepcopy(x)
deep[1] = -1.0
print("deepcopy copies", x[1].item(), deep.data_ptr() != x.data_ptr())
v = x[2:5]
dx, dv = copy.deepcopy([x, v])
dx[3] = 33.0
print("memo keeps views together", dv.tolist(), dv.storage_offset(), dv._base is dx)
same = copy.deepcopy({"a": x, "b": x})
print("same tensor twice", same["a"] is same["b"])
attempt("deepcopy non-leaf", lambda: copy.deepcopy(g * 2))
print("deepcopy detached", copy.deepcopy((g * 2).detach()).tolist())
leaf = copy.deepcopy(g)
print("deepcopy leaf", leaf.requires_grad, leaf.is_leaf, leaf is g)
pc = copy.deepcopy(p)
print("deepcopy parameter", type(pc).__name__, pc.grad, pc.grad is p.grad)

print("-- deepcopy of modules")
shared = nn.Linear(3, 3)
net = nn.Sequential(shared, nn.Tanh(), shared, nn.Linear(3, 2))
twin = copy.deepcopy(net)
print("repeated module", twin[0] is twin[2], twin[0].weight is net[0].weight, len(list(twin.parameters())))
x_in = torch.randn(4, 3)
print("same outputs", torch.allclose(net(x_in), twin(x_in)))


class TiedLM(nn.Module):
    def __init__(self, vocab=5, dim=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.head = nn.Linear(dim, vocab, bias=False)
        self.head.weight = self.embed.weight

    def forward(self, ids):
        return self.head(self.embed(ids))


lm = TiedLM()
lm2 = copy.deepcopy(lm)
print("tied stays tied", lm2.head.weight is lm2.embed.weight, len(list(lm2.parameters())),
      sorted(lm2.state_dict().keys()))
with torch.no_grad():
    lm2.embed.weight[0].fill_(1.0)
print("copy independent", lm.embed.weight[0].abs().sum().item() != 3.0, lm2.head.weight[0].tolist())
lm2.register_buffer("counts", torch.zeros(2))
lm3 = copy.deepcopy(lm2)
print("buffers", [n for n, _ in lm3.named_buffers()], lm3.counts is lm2.counts)

print("-- optimizer state and EMA teacher")
student = nn.Linear(3, 1)
opt = torch.optim.Adam(student.parameters(), lr=0.1)
data, target = torch.randn(8, 3), torch.randn(8, 1)
teacher = copy.deepcopy(student)
for prm in teacher.parameters():
    prm.requires_grad_(False)
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(student(data), target)
    loss.backward()
    opt.step()
    with torch.no_grad():
        for tp, sp in zip(teacher.parameters(), student.parameters()):
            tp.mul_(0.9).add_(sp, alpha=0.1)
    print(f"step {step} loss {loss.item():.4f} teacher-student gap "
          f"{(teacher.weight - student.weight).abs().sum().item():.4f}")
snap = copy.deepcopy(opt.state_dict())
state = snap["state"][0]
print("optimizer snapshot", sorted(state.keys()), state["step"], state["exp_avg"].shape,
      state["exp_avg"] is opt.state[student.weight]["exp_avg"])
opt2 = torch.optim.Adam(teacher.parameters(), lr=0.1)
opt2.load_state_dict(snap)
print("loaded", opt2.state_dict()["state"][0]["step"], opt2.param_groups[0]["lr"])
blob = pickle.dumps(student.state_dict())
sd = pickle.loads(blob)
print("pickled state_dict", type(sd).__name__, list(sd.keys()), sd["weight"].requires_grad,
      torch.equal(sd["bias"], student.bias.detach()))
