"""Rank 1 dies (`kill`: SIGKILL), raises (`raise`) or stalls (`stall`: sleeps past the timeout) at step 2
of a DDP loop; the others must not hang."""

import datetime
import os
import signal
import sys
import time

import ember.autograd as torch
import ember.distributed as dist
import ember.nn as nn
from ember.distributed import DistributedDataParallel as DDP

mode = sys.argv[1]
dist.init_process_group("mpi", timeout=datetime.timedelta(seconds=float(sys.argv[2])))
r = dist.get_rank()
ddp = DDP(nn.Linear(4, 2))
for step in range(5):
    if step == 2 and r == 1:
        if mode == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if mode == "stall":
            time.sleep(600)
        raise ValueError("bad batch on purpose")
    ddp(torch.randn(3, 4)).sum().backward()
    print(f"rank {r} step {step}", flush=True)
print(f"rank {r} finished without noticing", flush=True)
