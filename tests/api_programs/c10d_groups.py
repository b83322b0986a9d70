"""torch.distributed helpers around the process group, on a group of one: subgroups and their errors, the
deprecated coalesced collectives, debug levels, default backends, complex support, the distributed_c10d module."""

import os
import warnings

os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="29561")

import torch  # noqa: E402
import torch.distributed as d  # noqa: E402
from torch.distributed import distributed_c10d as c  # noqa: E402


def attempt(f):
    try:
        return f()
    except Exception as e:
        print(type(e).__name__, e)


warnings.simplefilter("always")
print(d.get_pg_count())
d.init_process_group("gloo", rank=0, world_size=1)
print(d.get_pg_count())
attempt(lambda: d.new_subgroups())
for gs in (0, 2, 1):
    got = attempt(lambda: d.new_subgroups(group_size=gs))
    if got:
        print(d.get_process_group_ranks(got[0]), len(got[1]), d.get_pg_count())
for lst in ([], [[0], [0]], [[0]]):
    got = attempt(lambda: d.new_subgroups_by_enumeration(lst))
    if got:
        print(d.get_process_group_ranks(got[0]), len(got[1]))
with warnings.catch_warnings(record=True) as w:
    ts = [torch.ones(2), torch.arange(3.0)]
    print(d.all_reduce_coalesced(ts), ts)
    out = [[torch.zeros(2), torch.zeros(3)]]
    d.all_gather_coalesced(out, ts)
    print(out)
    for x in w:
        print(x.category.__name__, str(x.message))
print(d.get_default_backend_for_device(torch.device("cpu")), d.get_default_backend_for_device("cuda:1"))
attempt(lambda: d.get_default_backend_for_device("meta"))
print(d.DebugLevel.DETAIL, int(d.DebugLevel.DETAIL), d.get_debug_level())
d.set_debug_level(d.DebugLevel.INFO)
print(d.get_debug_level())
os.environ["TORCH_DISTRIBUTED_DEBUG"] = "DETAIL"
d.set_debug_level_from_env()
print(d.get_debug_level())
os.environ["TORCH_DISTRIBUTED_DEBUG"] = "bogus"
attempt(d.set_debug_level_from_env)
print([d.supports_complex(o) for o in (d.ReduceOp.SUM, d.ReduceOp.AVG, d.ReduceOp.PRODUCT, d.ReduceOp.MIN,
                                       d.ReduceOp.MAX)])
print(c._get_default_group() is d.group.WORLD, c.default_pg_timeout, d.default_pg_timeout)
print(d.is_ucc_available(), d.is_xccl_available())
d.destroy_process_group()
print(d.get_pg_count())
