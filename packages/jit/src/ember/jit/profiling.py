"""`replay_profile`: where a compiled step's replay spends its time, statement by statement.

The replay is generated Python (`Graph.codegen`); the profile runs a copy of that source with a clock read
after each top-level statement (one `perf_counter_ns` call, about 0.05 µs) and sums each step's times by
what the statement runs: the op of a kernel call or fused launch, the optimizer's one-pass step, or the
replay's own Python (guards, views, `del`, `.grad` binds). cProfile sees only the kernels' Python wrappers
and py-spy samples too coarsely for 5-µs nodes; this is how docs/benchmarks.md's per-node tables are made.
"""

from __future__ import annotations

import re
import time

from ember.jit import background

__all__ = ["replay_profile"]

_COMMENT = re.compile(r"#\s*(.*)$")
_LAUNCH = re.compile(r"\bL\d+_")
_BIND = re.compile(r"c\d+\._grad = ")
_META = re.compile(r"m\d+\(")  # an op's meta step, replayed before its kernel


def _label(lines: list[str], launch: str | None) -> str:
    """What a statement (its source lines) runs, for the profile's rows; `launch`: the fused group whose
    launch (NOTE [ A fused kernel's launch ] in ember.jit.launch, its names `L<node>_...`) is being written."""
    first = lines[0].strip()
    if launch is not None and _LAUNCH.search(first):
        return launch
    if first.startswith("if ") and first.endswith(("return MISS", "return DIVERGED")):
        return "guards"
    if first.startswith("del "):
        return "del"
    if _BIND.match(first):
        return "grad binds"
    if _META.match(first):
        return "meta checks"
    for line in lines:
        m = _COMMENT.search(line)
        if m and not line.strip().startswith("#"):
            return m.group(1)
    return "python"


def _instrument(source: str) -> tuple[str, list[str]]:
    """`source` (a replay function) with `_t(k)` after each top-level statement k, and the statements' labels."""
    lines = source.splitlines()
    out = [lines[0], "    _t0 = _clock()"]
    labels: list[str] = []
    stmt: list[str] = []
    launch = None
    body = lines[1:]
    for i, line in enumerate(body):
        if line.startswith("    # "):  # a fused group's launch follows, named by this comment
            launch = line.strip()[2:]
        stmt.append(line)
        nxt = body[i + 1] if i + 1 < len(body) else ""
        s = nxt.strip()
        ends = (len(nxt) - len(nxt.lstrip()) == 4 and not s.startswith(("except", "else", "elif", "#", "return "))
                and not line.rstrip().endswith(":") and not line.strip().startswith("#"))
        if ends or not nxt:
            if stmt[-1].strip().startswith("return "):
                ret = stmt.pop()
                if stmt:
                    out += stmt
                    out.append(f"    _t1 = _clock(); _acc[{len(labels)}] += _t1 - _t0; _t0 = _t1")
                    labels.append(_label(stmt, launch))
                out.append(ret)
            else:
                out += stmt
                out.append(f"    _t1 = _clock(); _acc[{len(labels)}] += _t1 - _t0; _t0 = _t1")
                labels.append(_label(stmt, launch))
            stmt = []
    return "\n".join(out) + "\n", labels


def replay_profile(fn, *args, steps: int = 100) -> list[tuple[str, float, int]]:
    """Run `steps` replays of compiled `fn` on `args` with each statement timed; rows `(what, µs, statements)`.

    Args:
        fn: a `CompiledFunction` (or `CompiledModule`) whose call with `args` has one captured plan: call it
            until it replays first (`config.capture_call` + 1 calls).
        args: the arguments of that call, as tensors and Python values.
        steps: how many replays to time, after one untimed replay (in which each fused kernel's launch binds
            its compiled entry point: the profile's own copy of the replay would otherwise go through the
            first-call path at every step).

    Returns:
        One row per op name (or "guards", "del", "grad binds", "python", an optimizer's one-pass step): the
        median over the steps of its summed wall time per step in µs, and how many statements it covers;
        largest first.

    Raises:
        ValueError: `fn` has no single captured plan to profile.
    """
    background.wait()  # the fused plan, not the unfused one its first replays ran
    compiled = getattr(fn, "_compiled", fn)
    plans = [(e, p) for e in getattr(compiled, "_cache", {}).values() for p in e.plans]
    if len(plans) != 1:
        raise ValueError(f"replay_profile: expected one captured plan, found {len(plans)}; call the compiled "
                         "function until it replays (or profile a function with a single plan)")
    fn(*args)  # one replay untimed: its fused launches bind their entry points into the replay's globals
    entry, (graph, replay) = plans[0]
    source, labels = _instrument(replay.source)
    acc = [0] * len(labels)
    g = dict(replay.__globals__)
    g["_clock"], g["_acc"] = time.perf_counter_ns, acc
    exec(compile(source, "<ember.jit profile>", "exec"), g)
    per_step: list[list[int]] = []
    saved = entry.plans
    entry.set_plans([(graph, g["replay"])])
    try:
        for _ in range(steps):
            acc[:] = [0] * len(labels)
            fn(*args)
            per_step.append(list(acc))
    finally:
        entry.set_plans(saved)
    rows: dict[str, list] = {}
    for k, label in enumerate(labels):
        row = rows.setdefault(label, [[0] * steps, 0])
        for s in range(steps):
            row[0][s] += per_step[s][k]
        row[1] += 1
    out = [(label, sorted(ts)[steps // 2] / 1e3, n) for label, (ts, n) in rows.items()]
    return sorted(out, key=lambda r: -r[1])
