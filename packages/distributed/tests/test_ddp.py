"""DistributedDataParallel on 2 ranks (and 4, oversubscribed) against single-process training."""

import pytest


@pytest.mark.parametrize("nproc, shared", [(2, "1"), (4, "1"), (2, "0")])
def test_ddp_matches_single_process_on_concatenated_batch(run_job, nproc, shared):
    # shared "1": buckets reduced in the node's shared memory (all ranks here share it); "0": MPI's Iallreduce
    res = run_job(nproc, "ddp.py", env={"EMBER_DDP_SHARED_MEMORY": shared})
    assert res.returncode == 0, res.stdout
    for r in range(nproc):
        for what in ["DDP == single process on the concatenated batch", "overlap: bucket 0 launched",
                     "no_sync accumulation", "find_unused: used on rank 0 only",
                     "unused parameters without find_unused_parameters raise",
                     "gradient_as_bucket_view == single process on the concatenated batch",
                     "gradient_as_bucket_view: no copy after the first backward, one reduction per bucket "
                     f"({'shared memory' if shared == '1' else 'Iallreduce'})",
                     "gradient_as_bucket_view no_sync accumulation",
                     "buffers: rank 0's after forward, one Ibcast per dtype", "DONE"]:
            assert f"rank {r} OK {what}" in res.stdout or f"rank {r} {what}" in res.stdout, (what, res.stdout)
        assert f"rank {r} OK step 3: rank {nproc - 1} has rank 0's parameters" in res.stdout


def test_ddp_without_a_process_group_raises():
    import ember.nn as nn
    from ember.distributed import DistributedDataParallel

    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedDataParallel(nn.Linear(2, 2))


@pytest.mark.parametrize("nproc, shared", [(2, "1"), (4, "1"), (2, "0")])
def test_join_with_uneven_inputs_matches_pytorchs_semantics(run_job, nproc, shared):
    res = run_job(nproc, "join.py", env={"EMBER_DDP_SHARED_MEMORY": shared})
    assert res.returncode == 0, res.stdout
    for r in range(nproc):
        assert f"rank {r} DONE" in res.stdout, res.stdout
    assert res.stdout.count(" OK ") == nproc * 8, res.stdout


def test_join_hook_of_a_joinable_that_skipped_the_joinable_constructor_is_refused():
    from ember.distributed.join import Join

    class NotJoinable:
        pass

    with pytest.raises(AssertionError, match="constructor calls the ``Joinable`` constructor"):
        Join.notify_join_context(NotJoinable())
