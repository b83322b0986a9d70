"""torch.distributed.nn.functional's collectives on the ranks of this job: values, and each input's gradient
against the adjoint worked out by hand; prints one OK line per check."""

import datetime

import numpy as np

import ember.autograd as torch
import ember.distributed as dist
import ember.distributed.nn.functional as dnn

dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=60))
r, n = dist.get_rank(), dist.get_world_size()
tri = n * (n + 1) / 2  # sum over ranks k of (k + 1)


def ok(name, got, want):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=1e-6, err_msg=f"rank {r}: {name}")
    print(f"rank {r} OK {name}", flush=True)


def leaf(*shape):
    return torch.full(shape, float(r + 1), requires_grad=True)


x = leaf(3)  # all_gather: rank r's loss weighs slot k by (r+1)(k+1), so x_r's gradient is (r+1) * tri
outs = dnn.all_gather(x)
ok("all_gather values", np.stack([o.detach().numpy() for o in outs]), np.repeat(np.arange(1.0, n + 1)[:, None], 3, 1))
sum((r + 1) * (k + 1) * o.sum() for k, o in enumerate(outs)).backward()
ok("all_gather grad", x.grad.numpy(), np.full(3, (r + 1) * tri))
ok("all_gather grad_fn", [type(outs[0].grad_fn).__name__ == "_AllGatherBackward"], [True])

x = leaf(2)  # all_reduce(SUM): every rank's loss (r+1) * sum; the gradient all-reduces those weights
out = dnn.all_reduce(x * 2)
ok("all_reduce values", out.detach().numpy(), np.full(2, 2 * tri))
((r + 1) * out.sum()).backward()
ok("all_reduce grad", x.grad.numpy(), np.full(2, 2 * tri))
ok("all_reduce input unchanged", x.detach().numpy(), np.full(2, r + 1.0))

x = leaf(2)  # broadcast from rank 0: only rank 0's input reaches the losses
out = dnn.broadcast(x, 0)
ok("broadcast values", out.detach().numpy(), np.full(2, 1.0))
((r + 1) * out.sum()).backward()
ok("broadcast grad", x.grad.numpy(), np.full(2, tri if r == 0 else 0.0))

x = leaf(2)  # reduce to rank 0: the gradient is rank 0's, broadcast
out = dnn.reduce(x, 0)
ok("reduce values", out.detach().numpy(), np.full(2, tri if r == 0 else r + 1.0))
((r + 1) * out.sum()).backward()
ok("reduce grad", x.grad.numpy(), np.full(2, 1.0))

x = leaf(2)  # gather to rank 0: rank 0's loss weighs slot k by k+1; the others' gathered lists are zeros
outs = dnn.gather(x, 0)
ok("gather values", np.stack([o.detach().numpy() for o in outs]),
   np.repeat(np.arange(1.0, n + 1)[:, None], 2, 1) if r == 0 else np.zeros((n, 2)))
sum((k + 1) * o.sum() for k, o in enumerate(outs)).backward()
ok("gather grad", x.grad.numpy(), np.full(2, r + 1.0))

x = leaf(2)  # scatter from rank 0: part k is x * (k+1); rank k's loss weighs its part by k+1
out = dnn.scatter([x * (k + 1) for k in range(n)], 0)
ok("scatter values", out.detach().numpy(), np.full(2, r + 1.0))
((r + 1) * out.sum()).backward()
ok("scatter grad", x.grad.numpy(), np.full(2, sum((k + 1) ** 2 for k in range(n)) if r == 0 else 0.0))

x = leaf(n, 2)  # all_to_all_single: row k goes to rank k, which weighs what it receives from rank r by (r+1)(k+1)
out = dnn.all_to_all_single(torch.empty(n, 2), x)
ok("all_to_all_single values", out.detach().numpy(), np.repeat(np.arange(1.0, n + 1)[:, None], 2, 1))
(out * torch.tensor([[(r + 1) * (k + 1.0)] for k in range(n)])).sum().backward()
ok("all_to_all_single grad", x.grad.numpy(), np.repeat(((r + 1) * np.arange(1.0, n + 1))[:, None], 2, 1))

x = leaf(2)  # all_to_all of a list: rank r's part k is x * (k+1), rank k weighs what it receives by (k+1)
outs = dnn.all_to_all([torch.empty(2) for _ in range(n)], [x * (k + 1) for k in range(n)])
ok("all_to_all values", np.stack([o.detach().numpy() for o in outs]),
   np.repeat((np.arange(1.0, n + 1) * (r + 1))[:, None], 2, 1))
sum((r + 1) * o.sum() for o in outs).backward()
ok("all_to_all grad", x.grad.numpy(), np.full(2, sum((k + 1) ** 2 for k in range(n))))

x = leaf(2)  # reduce_scatter(SUM): rank k gets the sum over ranks of their part k = x * (k+1)
out = dnn.reduce_scatter(torch.empty(2), [x * (k + 1) for k in range(n)])
ok("reduce_scatter values", out.detach().numpy(), np.full(2, (r + 1) * tri))
((r + 1) * out.sum()).backward()
ok("reduce_scatter grad", x.grad.numpy(), np.full(2, sum((k + 1) ** 2 for k in range(n))))

dist.destroy_process_group()
print(f"rank {r} DONE", flush=True)
