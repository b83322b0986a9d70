"""`ember-bench compile`: issue 21's table, ember eager against `ember.jit.compile`, beside PyTorch.

Each workload is one step (a forward, or a whole training step: forward, `backward()`, optimizer
step, `zero_grad`) run four ways: ember eager, ember compiled, and, with PyTorch, torch eager and
`torch.compile` (its first call takes 10-30 s). Steady-state steps are timed interleaved round by
round, in this process or (`isolate`, for two or more threads) each way in a child process of its
own; the first compiled step (capture, planning and code generation)
is timed apart, cold (the first plan in this process) and warm (a second, fresh step compiled after
it). Then the relative difference of ember compiled's output after N steps from ember eager's,
both started from the same seed, and whether the step was captured or, after a graph break, ran
eagerly (and why), so a ratio near 1 is never mistaken for a replay.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ember.bench import frameworks
from ember.bench.models import SIZES, gnmt, ncf
from ember.bench.isolated import time_isolated
from ember.bench.progress import Progress
from ember.bench.timing import stat_of, time_calls
from ember.bench.training import lenet, mlp
from ember.jit.bench import chain as _chain  # the ten elementwise ops, one definition

__all__ = ["COMPILE_ROWS", "CompileRow", "make_step", "run_compile_rows", "markdown"]


def _chain_step(fw, shape: tuple[int, int], backward: bool, seed: int):
    x = fw.from_numpy(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))
    if not backward:
        return _chain, (x,)
    x.requires_grad_(True)

    def step(x):
        x.grad = None
        _chain(x).sum().backward()
        return x.grad

    return step, (x,)


def _train_step(model, opt, loss_fn):
    def step(*batch):
        opt.zero_grad()
        loss = loss_fn(model(*batch[:-1]), batch[-1])
        loss.backward()
        opt.step()
        return loss.detach()

    return step


def _small_mlp(fw):
    nn = fw.nn
    return nn.Sequential(nn.Linear(784, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 10))


def _small_lenet(fw):
    nn = fw.nn
    return nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.Conv2d(4, 8, 3), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(8 * 12 * 12, 16), nn.ReLU(), nn.Linear(16, 10))


def _classifier_step(fw, builder, sample: tuple[int, ...], batch: int, seed: int):
    model = builder(fw)
    model.train()
    opt = fw.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    rng = np.random.default_rng(seed)
    x = fw.from_numpy(rng.standard_normal((batch, *sample), dtype=np.float32))
    y = fw.from_numpy(rng.integers(0, 10, batch).astype(np.int64))
    return _train_step(model, opt, fw.functional.cross_entropy), (x, y)


def _ncf_step(fw, small: bool, seed: int):
    s = SIZES["tiny" if small else "small"]["ncf"]
    model = ncf(fw, s)
    opt = fw.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed)
    user = fw.from_numpy(rng.integers(0, s.users, s.batch).astype(np.int64))
    item = fw.from_numpy(rng.integers(0, s.users, s.batch).astype(np.int64))
    y = fw.from_numpy(rng.integers(0, 2, s.batch).astype(np.float32))
    return _train_step(model, opt, fw.functional.binary_cross_entropy_with_logits), (user, item, y)


def _seq2seq_step(fw, small: bool, seed: int):
    """The training rows' LSTM encoder-decoder with attention (GNMT's architecture) and Adam, at their sizes."""
    s = SIZES["tiny" if small else "small"]["seq2seq"]
    model = gnmt(fw, s)
    opt = fw.optim.Adam(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed)
    src = fw.from_numpy(rng.integers(0, s.vocab, (s.batch, s.seq)).astype(np.int64))
    tgt = rng.integers(0, s.vocab, (s.batch, s.seq + 1)).astype(np.int64)
    F = fw.functional

    def loss(out, y):
        return F.cross_entropy(out.reshape(-1, out.shape[-1]), y.reshape(-1))

    return _train_step(model, opt, loss), (src, fw.from_numpy(tgt[:, :-1].copy()), fw.from_numpy(tgt[:, 1:].copy()))


def _gpt(fw, vocab: int, d: int, layers: int, heads: int, seq: int):
    """A GPT-style decoder: token and position embeddings, pre-norm causal self-attention blocks, a head."""
    nn = fw.nn
    mask = fw.from_numpy(np.triu(np.full((seq, seq), -np.inf, dtype=np.float32), 1))
    pos = fw.from_numpy(np.arange(seq, dtype=np.int64))

    class GPT(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.tok, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
            self.blocks = nn.ModuleList([nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, batch_first=True,
                                                                    norm_first=True) for _ in range(layers)])
            self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

        def forward(self, idx):
            x = self.tok(idx) + self.pos(pos)
            for block in self.blocks:
                x = block(x, src_mask=mask)
            return self.head(self.norm(x)).reshape(-1, vocab)

    return GPT()


def _gpt_step(fw, small: bool, seed: int):
    vocab, d, layers, heads, seq, batch = (64, 32, 1, 2, 8, 2) if small else (256, 128, 2, 4, 64, 16)
    model = _gpt(fw, vocab, d, layers, heads, seq)
    opt = fw.optim.AdamW(model.parameters(), lr=1e-3)
    rng = np.random.default_rng(seed)
    idx = fw.from_numpy(rng.integers(0, vocab, (batch, seq)).astype(np.int64))
    y = fw.from_numpy(rng.integers(0, vocab, batch * seq).astype(np.int64))
    return _train_step(model, opt, fw.functional.cross_entropy), (idx, y)


@dataclass(frozen=True)
class CompileRow:
    """One row: its label, how to make (step, args) in a framework, and calls per timed block."""

    name: str
    make: Callable  # (fw, small: bool, seed: int) -> (step, args)
    calls: int  # steps per timed block: long enough to time, and to leave the caches the other blocks cooled
    small_calls: int


COMPILE_ROWS = {
    "chain10-fwd": CompileRow("10-op chain 10×10, forward", lambda fw, small, seed: _chain_step(
        fw, (10, 10), False, seed), 500, 20),
    "chain10-bwd": CompileRow("10-op chain 10×10, forward+backward", lambda fw, small, seed: _chain_step(
        fw, (10, 10), True, seed), 200, 20),
    "chain64k-fwd": CompileRow("10-op chain 64×1024, forward", lambda fw, small, seed: _chain_step(
        fw, (8, 128) if small else (64, 1024), False, seed), 20, 5),
    "chain64k-bwd": CompileRow("10-op chain 64×1024, forward+backward", lambda fw, small, seed: _chain_step(
        fw, (8, 128) if small else (64, 1024), True, seed), 10, 5),
    "mlp": CompileRow("MLP 784-512-512-10, batch 128, SGD momentum", lambda fw, small, seed: _classifier_step(
        fw, _small_mlp if small else mlp, (784,), 16 if small else 128, seed), 3, 1),
    "lenet": CompileRow("LeNet-style CNN, batch 64, SGD momentum", lambda fw, small, seed: _classifier_step(
        fw, _small_lenet if small else lenet, (1, 28, 28), 4 if small else 64, seed), 1, 1),
    "ncf": CompileRow("NCF, batch 1024, Adam", _ncf_step, 10, 1),
    "gpt": CompileRow("GPT-style, 2 layers, d=128, T=64, batch 16, AdamW", _gpt_step, 1, 1),
    "lstm": CompileRow("LSTM encoder-decoder + attention, h=256, T=32, batch 32, Adam", _seq2seq_step, 1, 1),
}


def make_step(fw, key: str, small: bool, seed: int = 0):
    """Row `key`'s step in framework `fw` and its arguments, from `seed` (same seed, same parameters)."""
    fw.lib.manual_seed(seed)
    return COMPILE_ROWS[key].make(fw, small, seed)


def _numpy(t) -> np.ndarray:
    return t.detach().numpy().astype(np.float64)


def _rel_diff(a, b) -> float:
    """max |a - b| / max |a|: how far compiled's output is from eager's."""
    a, b = _numpy(a), _numpy(b)
    return float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(a))), 1e-30))


def _first_steps(fn: Callable, args: tuple, calls: int) -> float:
    """Wall seconds for the first `calls` calls of a compiled fn, up to and including the first that runs compiled
    code (ember's first replay; wall, whatever `--clock`: torch.compile compiles in worker processes that CPU time
    would miss)."""
    t0 = time.perf_counter()
    for _ in range(calls):
        fn(*args)
    return time.perf_counter() - t0


def first_step_on_empty_caches(key: str, small: bool, threads: int | None) -> dict:
    """`{"wall_s", "cpu_s"}` of row `key`'s first compiled step (its calls up to the first replay) in a child process
    whose Numba and ember.jit caches are new empty folders: the issue's cold start, every kernel compiled."""
    folder = tempfile.mkdtemp(prefix="ember-bench-cold-")
    try:
        env = {**os.environ, "NUMBA_CACHE_DIR": os.path.join(folder, "numba"),
               "EMBER_JIT_CACHE_DIR": os.path.join(folder, "jit")}
        argv = [sys.executable, "-m", "ember.bench.compiled", key, "small" if small else "paper", str(threads or 0)]
        out = subprocess.run(argv, env=env, check=True, capture_output=True, text=True).stdout
        return json.loads(out.strip().splitlines()[-1])
    finally:
        shutil.rmtree(folder, ignore_errors=True)  # the temporary folder made above, nothing else


def _child(key: str, size: str, threads: int) -> dict:
    import ember.jit as jit

    ember = frameworks.load("ember")
    if threads:
        ember.lib.set_num_threads(threads)
    fn, args = make_step(ember, key, size == "small")
    compiled = jit.compile(fn)
    c0 = time.process_time()
    wall = _first_steps(compiled, args, jit.config.capture_call + 1)
    return {"wall_s": wall, "cpu_s": time.process_time() - c0}


def _block(fn: Callable, args: tuple, calls: int) -> Callable[[], None]:
    def run() -> None:
        for _ in range(calls):
            fn(*args)

    return run


def run_compile_rows(keys: list[str], compare: bool = True, torch_compile: bool = False, repeats: int = 5,
                     small: bool = False, clock: str = "wall", loss_steps: int = 100,
                     empty_caches: bool = False, threads: int | None = None, isolate: bool = False) -> list[dict]:
    """Each row's µs per step, ember eager / compiled (and torch eager / torch.compile), interleaved.

    With `isolate`, each of them is timed in a child process of its own (`ember.bench.isolated`: needed at two
    or more threads, where the frameworks' thread pools in one process take the cores from each other).

    Also the first compiled step, cold and warm (seconds, up to and including the first replay; with
    `empty_caches`, also in a child process on empty Numba and ember.jit caches), and the relative
    difference of ember compiled's output from eager's after `loss_steps` steps."""
    import ember.jit as jit

    tick = time.process_time if clock == "cpu" else time.perf_counter
    ember = frameworks.load("ember")
    torch_fw = frameworks.load("torch") if compare and not isolate else None
    rows = []
    with Progress(len(keys) * repeats, "compiled steps") as bar:
        for key in keys:
            spec = COMPILE_ROWS[key]
            calls = spec.small_calls if small else spec.calls
            row: dict = {"key": key, "workload": spec.name + (" (small sizes)" if small else ""), "calls": calls}
            if empty_caches:
                row["empty_cache"] = first_step_on_empty_caches(key, small, threads)
            # same seed, same parameters: the output after loss_steps steps must agree
            eager_fn, eager_args = make_step(ember, key, small)
            comp_fn, comp_args = make_step(ember, key, small)
            compiled = jit.compile(comp_fn)
            first = jit.config.capture_call + 1  # the eager calls, the capture, the first replay
            row["first_cold_s"] = _first_steps(compiled, comp_args, first)
            warm_fn, warm_args = make_step(ember, key, small)
            row["first_warm_s"] = _first_steps(jit.compile(warm_fn), warm_args, first)
            for _ in range(first):
                eager_fn(*eager_args)
            for _ in range(max(loss_steps - first - 1, 0)):
                eager_fn(*eager_args)
                compiled(*comp_args)
            jit.wait_for_compiles()  # the steady state: fused kernels compiled in the background are in place
            row["rel_diff"] = _rel_diff(eager_fn(*eager_args), compiled(*comp_args))
            ex = compiled.explain()  # a step that broke runs eagerly: say so beside its figures
            row["plans"], row["nodes"] = ex.graph_count, sum(len(ops) for ops in ex.ops_per_graph)
            row["breaks"] = [str(b) for b in ex.break_reasons]
            progress = functools.partial(bar.update, 1, model=spec.name)
            if isolate:
                names = ["ember", "ember.jit", *(["torch"] if compare else []),
                         *(["torch.compile"] if compare and torch_compile else [])]
                secs, info = time_isolated(key, small, names, calls, repeats, threads, clock, tick=progress)
                if "torch.compile" in info:
                    row["torch_first_cold_s"] = info["torch.compile"]["first_s"]
            else:
                fns = {"ember": _block(eager_fn, eager_args, calls),
                       "ember.jit": _block(compiled, comp_args, calls)}
                if torch_fw is not None:
                    t_fn, t_args = make_step(torch_fw, key, small)
                    fns["torch"] = _block(t_fn, t_args, calls)
                    if torch_compile:
                        tc_fn, tc_args = make_step(torch_fw, key, small)
                        tc = torch_fw.lib.compile(tc_fn)
                        row["torch_first_cold_s"] = _first_steps(tc, tc_args, 1)
                        fns["torch.compile"] = _block(tc, tc_args, calls)
                secs = time_calls(fns, repeats, 1, tick=progress, clock=tick)
            for name, samples in secs.items():
                row[name] = stat_of([s / calls * 1e6 for s in samples])
            if "torch" in row:
                row["ratio"] = row["torch"]["median"] / row["ember.jit"]["median"]
            rows.append(row)
    return rows


def _us(stat: dict | None) -> str:
    if stat is None:
        return "—"
    m = stat["median"]
    return f"{m:,.1f}" if m < 100 else f"{m:,.0f}"


def _captured(r: dict) -> str:
    """How the compiled step ran: its plans and their nodes, or eagerly, with the first break's reason."""
    if r["plans"]:
        return f"{r['plans']} plan(s), {r['nodes']} nodes" + (f"; {len(r['breaks'])} break(s)" if r["breaks"] else "")
    reason = r["breaks"][0].replace("|", "/")[:120] if r["breaks"] else "nothing captured"
    return f"no, eager: {reason}"


def markdown(rows: list[dict]) -> str:
    """The rows as issue 21's table: µs per step, ratios, first compiled step and loss difference."""
    lines = ["| workload | ember eager µs | ember.jit µs | eager / jit | torch eager µs | torch.compile µs | "
             "jit vs torch eager | first jit step cold / warm | first torch.compile step | "
             "compiled vs eager (rel.) | captured |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ratio = f"{r['ratio']:.2f}×" if "ratio" in r else "—"
        tc = f"{r['torch_first_cold_s']:.1f} s" if "torch_first_cold_s" in r else "—"
        lines.append(f"| {r['workload']} | {_us(r['ember'])} | {_us(r['ember.jit'])} | "
                     f"{r['ember']['median'] / r['ember.jit']['median']:.2f}× | {_us(r.get('torch'))} | "
                     f"{_us(r.get('torch.compile'))} | {ratio} | {r['first_cold_s']:.2f} / "
                     f"{r['first_warm_s']:.2f} s | {tc} | {r['rel_diff']:.1e} | {_captured(r)} |")
    empty = [r for r in rows if "empty_cache" in r]
    if empty:
        lines += ["", "| workload | first jit step, empty Numba and ember.jit caches: wall / process CPU |",
                  "|---|---|"]
        lines += [f"| {r['workload']} | {r['empty_cache']['wall_s']:.2f} / {r['empty_cache']['cpu_s']:.2f} s |"
                  for r in empty]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":  # the child of `first_step_on_empty_caches`
    print(json.dumps(_child(sys.argv[1], sys.argv[2], int(sys.argv[3]))))
