"""Writing results: a JSON file with every figure, a Markdown table, PNG bar charts."""

from __future__ import annotations

import json
from pathlib import Path

__all__ = ["write_results", "markdown_table", "terminal_table", "SCHEMA_KEYS"]

SCHEMA_KEYS = ("schema", "machine", "digits", "table1", "overhead", "dataloader", "command")


def _fmt(stat: dict | None, digits: int = 1) -> str:
    if not stat:
        return "—"
    return f"{stat['median']:,.{digits}f} ± {stat['spread']:,.{digits}f}"


def markdown_table(results: dict) -> str:
    lines = []
    rows = results.get("table1") or []
    has_torch = any("torch" in r for r in rows)
    if rows:
        head = "| model | unit | ember |" + (" PyTorch | ember/PyTorch |" if has_torch else "")
        lines += [head, "|" + "---|" * (head.count("|") - 1)]
        for r in rows:
            line = f"| {r['model']} | {r['unit']} | {_fmt(r.get('ember'))} |"
            if has_torch:
                ratio = f"{r['ratio']:.2f}" if "ratio" in r else "—"
                line += f" {_fmt(r.get('torch'))} | {ratio} |"
            lines.append(line)
    ov = results.get("overhead") or {}
    if ov:
        lines += ["", "Per-op cost on 10×10 float32 tensors (µs, median ± spread; ratio = ember / PyTorch, "
                  "one interleaved run):", ""]
        fws = [k for k in ("ember", "torch") if any(k in v for v in ov.values())]
        measures = (("forward_us", "fwd"), ("recorded_us", "recorded"), ("forward_backward_us", "+ .sum().backward()"))
        head = "| op | numpy |"
        for _, label in measures:
            head += "".join(f" {f} {label} |" for f in fws) + (" ratio |" if len(fws) > 1 else "")
        lines += [head, "|" + "---|" * (head.count("|") - 1)]
        for op, v in ov.items():
            line = f"| {op} | {_fmt(v.get('numpy_us'), 2)} |"
            for m, _ in measures:
                line += "".join(f" {_fmt(v.get(f, {}).get(m), 2)} |" for f in fws)
                if len(fws) > 1:
                    r = v.get("ratio", {}).get(m)
                    line += f" {r:.2f} |" if r is not None else " — |"
            lines.append(line)
    dl = results.get("dataloader") or {}
    if dl:
        lines += ["", "DataLoader, 3×32×32 images with a per-item transform, batch 64:", "",
                  "| loader | workers | batches/s | main-process receive (ms/batch) |", "|---|---|---|---|"]
        for loader in ("ember", "torch"):
            for workers, r in (dl.get(loader) or {}).items():
                recv = r.get("receive_ms")
                recv_s = "—" if recv is None else f"{recv:.3f}"
                lines.append(f"| {loader} | {workers} | {r['batches_per_s']:.1f} | {recv_s} |")
    return "\n".join(lines) + "\n"


def terminal_table(results: dict) -> str:
    return markdown_table(results)


def _charts(results: dict, out: Path) -> list[str]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    written = []
    rows = results.get("table1") or []
    if rows:
        path = out / "table1.png"
        _table1_chart(plt, rows, path)
        written.append(str(path))
    ov = results.get("overhead") or {}
    if ov:
        path = out / "overhead.png"
        _overhead_chart(plt, ov, path)
        written.append(str(path))
    return written


_COLORS = {"numpy": "#9e9e9e", "ember": "#d9534f", "torch": "#5b8bd9"}
_KINDS = (("forward_us", "forward"), ("recorded_us", "recorded"), ("forward_backward_us", "op + backward"))


def _overhead_chart(plt, ov: dict, path: Path) -> dict:
    """One panel per kind of figure (forward, recorded, op + backward), each on its own scale, so
    the µs of a forward op are not flattened by the ~100 µs of a backward; with PyTorch, its bars
    stand beside ember's and the ratio sits on ember's bar."""
    ops = [o for o in ov if "numpy_us" in ov[o]]
    fws = [f for f in ("ember", "torch") if all(f in ov[o] for o in ops)]
    fig, axes = plt.subplots(1, len(_KINDS), figsize=(11, 3.4), squeeze=False)
    plotted = {}
    width = 0.8 / (len(fws) + 1)
    for ax, (key, title) in zip(axes[0], _KINDS, strict=True):
        series = ([("numpy", [ov[o]["numpy_us"]["median"] for o in ops])] if key == "forward_us" else [])
        series += [(f, [ov[o][f][key]["median"] for o in ops]) for f in fws]
        for i, (label, vals) in enumerate(series):
            bars = ax.bar([j + i * width for j in range(len(ops))], vals, width, label=label, color=_COLORS[label])
            if label == "ember" and "torch" in fws:
                theirs = [ov[o]["torch"][key]["median"] for o in ops]
                ax.bar_label(bars, labels=[f"{v / t:.1f}×" for v, t in zip(vals, theirs, strict=True)], fontsize=6)
        plotted[title] = {label: dict(zip(ops, vals, strict=True)) for label, vals in series}
        ax.set_xticks([j + width * (len(series) - 1) / 2 for j in range(len(ops))], ops, fontsize=7)
        ax.set_title(title, fontsize=9)
        ax.set_ylabel("µs per call")
        ax.legend(fontsize=6)
    fig.suptitle("Per-op cost, 10×10 float32" + (" (ember / PyTorch on ember's bars)" if "torch" in fws else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return plotted


def _table1_chart(plt, rows: list[dict], path: Path) -> dict:
    """Ember's throughput as a ratio to PyTorch's per model (a line at 1.0) when PyTorch ran;
    otherwise ember's absolute throughput, one panel per unit on a linear axis."""
    title = f"Table 1 ({rows[0]['size']} size), training throughput"
    if any("ratio" in r for r in rows):
        fig, ax = plt.subplots(figsize=(7, 3.5))
        ratio_rows = [r for r in rows if "ratio" in r]
        names = [r["model"] for r in ratio_rows]
        vals = [r["ratio"] for r in ratio_rows]
        bars = ax.bar(names, vals, color=["#5cb85c" if v >= 1.0 else "#d9534f" for v in vals])
        ax.bar_label(bars, labels=[f"{v:.2f}×" for v in vals], fontsize=8)
        ax.axhline(1.0, color="black", lw=0.8, ls="--", label="PyTorch")
        ax.set_ylabel("ember throughput / PyTorch's")
        ax.set_ylim(0, max([1.2, *vals]) * 1.15)
        ax.legend(fontsize=8, loc="upper right")
        ax.set_title(title + ", ember relative to PyTorch")
        fig.autofmt_xdate(rotation=20)
        plotted = {"ratio": dict(zip(names, vals, strict=True))}
    else:
        units = list(dict.fromkeys(r["unit"] for r in rows))
        widths = [sum(r["unit"] == u for r in rows) + 1 for u in units]
        fig, axes = plt.subplots(1, len(units), figsize=(1.1 * sum(widths) + 1, 3.5), squeeze=False,
                                 gridspec_kw={"width_ratios": widths})
        plotted = {}
        for ax, unit in zip(axes[0], units, strict=True):
            group = [r for r in rows if r["unit"] == unit]
            vals = [r["ember"]["median"] for r in group]
            errs = [r["ember"]["spread"] for r in group]
            ax.bar([r["model"] for r in group], vals, yerr=errs, color="#d9534f", capsize=3)
            ax.set_ylabel(f"{unit} (ember)")
            ax.tick_params(axis="x", rotation=20)
            plotted[unit] = {r["model"]: r["ember"]["median"] for r in group}
        fig.suptitle(title + " (no PyTorch in this run)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return plotted


def write_results(results: dict, out_dir: str | Path) -> dict:
    """Write results.json, table1.md and the charts under `out_dir`; returns the paths."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    results = {"schema": 1, **results}
    (out / "results.json").write_text(json.dumps(results, indent=2, default=float))
    (out / "table1.md").write_text(markdown_table(results))
    pngs = _charts(results, out)
    return {"json": str(out / "results.json"), "markdown": str(out / "table1.md"), "png": pngs}
