"""The mistakes recommender code makes with ids, tables, bags and losses, and PyTorch's exact words for them."""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(101)


def attempt(label, fn):
    try:
        out = fn()
        print(label, "->", out if not isinstance(out, torch.Tensor) else (tuple(out.shape), out.dtype))
    except Exception as e:  # noqa: BLE001
        print(label, "->", type(e).__name__ + ":", str(e).split("\n")[0])


emb = nn.Embedding(5, 3)
bag = nn.EmbeddingBag(5, 3, mode="sum")
attempt("id out of range", lambda: emb(torch.tensor([1, 5])))
attempt("negative id", lambda: emb(torch.tensor([-1])))
attempt("float ids", lambda: emb(torch.tensor([1.0, 2.0])))
attempt("int32 ids", lambda: emb(torch.tensor([1, 2], dtype=torch.int32)))
attempt("uint8 ids", lambda: emb(torch.tensor([1, 2], dtype=torch.uint8)))
attempt("python list", lambda: emb([1, 2]))
attempt("0-dim id", lambda: emb(torch.tensor(3)))
attempt("empty ids", lambda: emb(torch.tensor([], dtype=torch.long)))
attempt("padding_idx too big", lambda: nn.Embedding(5, 3, padding_idx=5))
attempt("padding_idx negative", lambda: nn.Embedding(5, 3, padding_idx=-1).padding_idx)
attempt("from_pretrained 1-d", lambda: nn.Embedding.from_pretrained(torch.ones(4)))
attempt("bag out of range", lambda: bag(torch.tensor([7, 0]), torch.tensor([0, 1])))
attempt("max bag out of range", lambda: F.embedding_bag(torch.tensor([0, 7]), bag.weight, torch.tensor([0, 1]),
                                                        mode="max"))
attempt("float64 bag out of range", lambda: F.embedding_bag(torch.tensor([0, -2]), bag.weight.double(),
                                                            torch.tensor([0, 1])))
attempt("padded bag out of range", lambda: nn.EmbeddingBag(5, 3, padding_idx=0)(torch.tensor([[1, 9]])))
attempt("bag offsets not starting at 0", lambda: bag(torch.tensor([0, 1, 2]), torch.tensor([1, 2])))
attempt("bag 1-d without offsets", lambda: bag(torch.tensor([0, 1, 2])))
attempt("bag offsets dtype mismatch", lambda: bag(torch.tensor([0, 1]), torch.tensor([0], dtype=torch.int32)))
attempt("bag 3-d input", lambda: bag(torch.zeros(2, 2, 2, dtype=torch.long)))
attempt("bag psw shape", lambda: bag(torch.tensor([0, 1, 2]), torch.tensor([0, 2]),
                                     per_sample_weights=torch.ones(2)))
attempt("bag max with psw", lambda: nn.EmbeddingBag(5, 3, mode="max")(torch.tensor([[0, 1]]),
                                                                       per_sample_weights=torch.ones(1, 2)))
attempt("bag 2-D offsets", lambda: bag(torch.tensor([0, 1]), torch.tensor([[0]])))

u = torch.randn(4, 8)
v = torch.randn(6, 8)
attempt("score mismatch bmm", lambda: torch.bmm(u.unsqueeze(0), v.unsqueeze(0)))
attempt("matmul mismatch", lambda: u @ v)
attempt("dot of 2-d", lambda: torch.dot(u, u))
attempt("topk too large", lambda: (u @ v.T).topk(7))
attempt("topk negative", lambda: (u @ v.T).topk(-1))
attempt("gather index float", lambda: v.gather(1, torch.zeros(6, 1)))
attempt("gather out of range", lambda: v.gather(1, torch.full((6, 1), 8)))
attempt("gather dims", lambda: v.gather(1, torch.zeros(6, dtype=torch.long)))
attempt("bce shapes", lambda: F.binary_cross_entropy_with_logits(torch.zeros(4, 1), torch.zeros(4)))
attempt("bce long target", lambda: F.binary_cross_entropy_with_logits(torch.zeros(4), torch.zeros(4).long()))
attempt("bce probs out of range", lambda: F.binary_cross_entropy(torch.tensor([1.5]), torch.tensor([1.0])))
attempt("ce float target wrong shape", lambda: F.cross_entropy(torch.zeros(3, 5), torch.zeros(3, 4)))
attempt("ce class out of range", lambda: F.cross_entropy(torch.zeros(3, 5), torch.tensor([0, 5, 1])))
attempt("margin ranking target shape", lambda: F.margin_ranking_loss(torch.zeros(3), torch.zeros(3),
                                                                     torch.ones(2)))
attempt("bucketize unsorted?", lambda: torch.bucketize(torch.tensor([3.0]), torch.tensor([5.0, 1.0, 2.0])).tolist())
attempt("bucketize 2-d boundaries", lambda: torch.bucketize(torch.tensor([3.0]), torch.ones(2, 2)))
attempt("searchsorted dims", lambda: torch.searchsorted(torch.ones(2, 3), torch.ones(3, 1)))
attempt("multinomial 3-d", lambda: torch.multinomial(torch.ones(2, 2, 2), 1))
attempt("multinomial zero samples", lambda: torch.multinomial(torch.ones(3), 0))
attempt("randint high<=low", lambda: torch.randint(5, 5, (2,)))
attempt("unique dim out of range", lambda: torch.unique(torch.ones(2, 2), dim=2))
attempt("bincount negative", lambda: torch.bincount(torch.tensor([1, -1])))
attempt("bincount float", lambda: torch.bincount(torch.tensor([1.0])))
attempt("bincount weights len", lambda: torch.bincount(torch.tensor([1, 2]), weights=torch.ones(3)))
attempt("remainder by zero int", lambda: torch.remainder(torch.tensor([3]), 0))
attempt("bitwise on float", lambda: torch.tensor([1.0]) & 1)
attempt("shift float", lambda: torch.tensor([1.0]) << 1)
attempt("index_add_ dtype", lambda: torch.zeros(3, 2).index_add_(0, torch.tensor([0]), torch.ones(1, 2).double()))
attempt("index_add_ index float", lambda: torch.zeros(3, 2).index_add_(0, torch.tensor([0.0]), torch.ones(1, 2)))
attempt("scatter_add_ shape", lambda: torch.zeros(3).scatter_add_(0, torch.tensor([[0]]), torch.ones(1)))
attempt("triu_indices negative", lambda: torch.triu_indices(-1, 3))
attempt("repeat_interleave mismatch", lambda: torch.repeat_interleave(torch.arange(3), torch.tensor([1, 2])))
attempt("repeat_interleave negative", lambda: torch.repeat_interleave(torch.tensor([1, -1])))


def _sparse_adam_wd():
    e = nn.Embedding(4, 2, sparse=True)
    opt = torch.optim.Adam(e.parameters(), lr=0.1)
    e(torch.tensor([1])).sum().backward()
    opt.step()
    return "stepped"


attempt("sparse grad + weight_decay Adam", _sparse_adam_wd)


def _sparse_clip():
    e = nn.Embedding(4, 2, sparse=True)
    e(torch.tensor([1, 1])).sum().backward()
    try:
        return round(nn.utils.clip_grad_norm_(e.parameters(), 1.0).item(), 4)
    except NotImplementedError as err:
        return str(err).split(" backend")[0]


attempt("clip sparse grads", _sparse_clip)
attempt("sparse grad to numpy", lambda: nn.Embedding(3, 2, sparse=True).weight.grad)
