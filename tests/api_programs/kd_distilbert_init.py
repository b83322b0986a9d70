"""DistilBERT-style student init: take every other teacher layer by key remapping, meta-device build, assign=True."""
import torch
nn = torch.nn
F = torch.nn.functional

torch.manual_seed(0)


class Encoder(nn.Module):
    def __init__(self, n_layers, d=8, vocab=20):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.layers = nn.ModuleList([nn.TransformerEncoderLayer(d, 2, 16, dropout=0.0, batch_first=True)
                                     for _ in range(n_layers)])
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab)
        self.register_buffer("position_ids", torch.arange(6), persistent=False)

    def forward(self, ids):
        h = self.embed(ids)
        for layer in self.layers:
            h = layer(h)
        return self.head(self.norm(h))


teacher = Encoder(4).eval()
t_sd = teacher.state_dict()
print(len(t_sd), [k for k in t_sd if k.startswith("layers.0.")][:4])

keep = [0, 2]
student_sd = {}
for k, v in t_sd.items():
    if k.startswith("layers."):
        idx = int(k.split(".")[1])
        if idx in keep:
            student_sd[k.replace(f"layers.{idx}.", f"layers.{keep.index(idx)}.", 1)] = v.clone()
    else:
        student_sd[k] = v.clone()
print(len(student_sd), sorted({k.split(".")[1] for k in student_sd if k.startswith("layers.")}))

with torch.device("meta"):
    student = Encoder(2)
print(student.head.weight.device, student.position_ids.device, student.head.weight.is_meta)
try:
    shape_probe = student(torch.tensor([[1, 2]]))
    print("meta forward", shape_probe.device, tuple(shape_probe.shape))
except Exception as e:
    print(type(e).__name__, str(e)[:70])
res = student.load_state_dict(student_sd, assign=True, strict=False)
print(res, student.head.weight.device, type(student.head.weight).__name__, student.head.weight.requires_grad)
print("position_ids still meta", student.position_ids.is_meta)
student.position_ids = torch.arange(6)
ids = torch.tensor([[1, 5, 7, 3], [2, 2, 9, 0]])
with torch.no_grad():
    t_out, s_out = teacher(ids), student.eval()(ids)
print("layer0 equal", torch.equal(student.layers[0].linear1.weight, teacher.layers[0].linear1.weight),
      "layer1 from 2", torch.equal(student.layers[1].linear1.weight, teacher.layers[2].linear1.weight))
print("logit gap", round((t_out - s_out).abs().mean().item(), 4))

# assign=True with the teacher's own Parameters shares them (tied student/teacher embeddings)
shared = Encoder(2)
shared.load_state_dict(teacher.state_dict(keep_vars=True), strict=False, assign=True)
print("shares embed", shared.embed.weight is teacher.embed.weight, "copy", student.embed.weight is teacher.embed.weight)
teacher.embed.weight.requires_grad_(False)
frozen = Encoder(2)
frozen.load_state_dict({"embed.weight": teacher.embed.weight}, strict=False, assign=True)
print("requires_grad from model", frozen.embed.weight.requires_grad, teacher.embed.weight.requires_grad)

# distill the student for a few steps on the teacher's soft labels
student.train()
opt = torch.optim.AdamW(student.parameters(), lr=1e-2)
T = 2.0
for step in range(4):
    opt.zero_grad()
    s = student(ids)
    loss = F.kl_div(F.log_softmax(s / T, -1).flatten(0, 1), F.softmax(t_out / T, -1).flatten(0, 1),
                    reduction="batchmean") * T * T
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))

# meta copies without assign warn and stay meta; shape errors name the key
with torch.device("meta"):
    m = nn.Linear(8, 20)
m.load_state_dict({"weight": t_sd["head.weight"], "bias": t_sd["head.bias"]})
print("no assign", m.weight.is_meta)
try:
    Encoder(2, d=4).load_state_dict(student_sd)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[1][:100])
bad = dict(student_sd)
bad["head.bias"] = torch.zeros(20, dtype=torch.int64)
try:
    Encoder(2).load_state_dict(bad, assign=True)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[1])
