"""Checkpointing code as it exists in the wild, in a world of one: async_save's future, the deprecated
save_state_dict/load_state_dict (and their FutureWarnings), a language model with tied embeddings through the
state_dict helpers, and loading only the model half of a full training checkpoint."""
import os
import tempfile
import warnings

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict

nn = torch.nn
F = torch.nn.functional


class TinyLM(nn.Module):
    def __init__(self, vocab=11, dim=6):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.lm_head.weight = self.embed.weight  # tied
        self.register_buffer("pos_scale", torch.linspace(0.5, 1.0, 4))

    def forward(self, ids):
        return self.lm_head(self.norm(self.embed(ids) * self.pos_scale[: ids.shape[1], None]))


dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1)
torch.manual_seed(0)
model = TinyLM()
opt = torch.optim.Adam(model.parameters(), lr=0.05)
ids = torch.randint(0, 11, (8, 4))
for step in range(3):
    opt.zero_grad()
    logits = model(ids[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, 11), ids[:, 1:].reshape(-1))
    loss.backward()
    opt.step()
    print("step", step, round(loss.item(), 4))

msd, osd = get_state_dict(model, opt)
print(list(msd), list(osd["state"]), osd["param_groups"][0]["params"])
print(msd["lm_head.weight"].data_ptr() == msd["embed.weight"].data_ptr())

with tempfile.TemporaryDirectory() as root:
    fut = dcp.async_save({"model": msd, "optim": osd, "step": 3}, checkpoint_id=os.path.join(root, "a"))
    md = fut.result()
    print(type(fut).__name__, fut.done(), type(md).__name__, len(md.state_dict_metadata))

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dcp.save_state_dict({"model": model.state_dict()}, storage_writer=dcp.FileSystemWriter(os.path.join(root, "b")))
        back = {"model": TinyLM().state_dict()}
        dcp.load_state_dict(back, storage_reader=dcp.FileSystemReader(os.path.join(root, "b")))
    print([(w.category.__name__, str(w.message)) for w in caught])
    print(torch.equal(back["model"]["norm.weight"], model.norm.weight), back["model"]["pos_scale"].tolist())

    torch.manual_seed(9)
    fresh = TinyLM()
    only_model = {"model": fresh.state_dict()}
    dcp.load(only_model, checkpoint_id=os.path.join(root, "a"))   # the optimizer half stays on disk
    fresh.load_state_dict(only_model["model"])
    print("tied after load", fresh.lm_head.weight is fresh.embed.weight, torch.equal(fresh.embed.weight,
                                                                                     model.embed.weight))
    print("same logits", torch.allclose(fresh(ids), model(ids)))

    fresh_opt = torch.optim.Adam(fresh.parameters(), lr=0.5)
    f_msd, f_osd = get_state_dict(fresh, fresh_opt)
    full = {"model": f_msd, "optim": f_osd, "step": 0}
    dcp.load(full, checkpoint_id=os.path.join(root, "a"))
    set_state_dict(fresh, fresh_opt, model_state_dict=full["model"], optim_state_dict=full["optim"])
    st = fresh_opt.state[fresh.embed.weight]
    print("resumed step", full["step"], float(st["step"]), round(st["exp_avg"].abs().sum().item(), 4))
    print(fresh_opt.param_groups[0]["lr"], len(fresh_opt.param_groups[0]["params"]))
dist.destroy_process_group()
