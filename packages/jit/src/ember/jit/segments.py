"""Graph breaks split a compiled function into segments: compiled ones with eager Python between them.

NOTE [ Compiled segments ]
A capture that meets a graph break (`Recorder.brk`: a host read used in Python, printing, an op
returning a Python value ...) keeps the place it broke: the stack of (code, line) from the break
outwards. Where the compiled function's own code is on that stack, the line there lies inside one
statement of its body's top level (a compound statement, an `if` or a `for`, is one statement
with all it holds), and its source can be had (`inspect.getsource`, `ast`), the body is split
there instead of running every call eagerly: the statements before, the breaking statement, the
statements after. Each becomes a function generated from the original statements (their line
numbers and file kept, so tracebacks and later breaks name the user's lines) in the function's
globals and over its closure cells (rebound to the original function's very cells, so a closure
variable is read where the original reads it):
- the first segment takes the original signature (its defaults are the original's objects);
  the others take the names they read that an earlier segment bound (live-in), and each returns
  the names it binds that a later one reads (live-out). Names are found on the AST at the
  function's scope; nested functions, lambdas and comprehensions only add reads. A name that only
  passes by a segment is never its argument: a driver keeps the values between segments;
- the breaking statement runs as plain Python at every call; the segments before and after are
  `CompiledFunction`s of their own (with their own guards and plans), so a later break in one of
  them splits that segment again, up to `config.segment_depth_limit` splits deep;
- a trailing `return` of names and constants only (`return running`, `return loss, acc`) is run
  by the driver rather than inside the last compiled segment, and a returned tuple, list or dict
  of other expressions first has them assigned to temporaries (`return out * 2, acc` as `r0 = out
  * 2` then `return r0, acc`): a Python float from an eager segment (a `.item()` sum) would
  otherwise be that segment's argument, guarded by its value, and every call would capture again.
  A Python number (or a list of them) that a compiled segment does read is guarded by value as any
  argument is;
- a name a segment may leave unbound (assigned in a branch) is passed as a sentinel, which the
  next segment `del`s first, so reading it raises eager's `UnboundLocalError`.
The backward of a compiled segment's output that needs a history runs the segment's captured
backward plan (NOTE [ A captured backward ] in `ember.jit.backward`); a later segment that calls
`loss.backward()` on it breaks there (its backward reaches a history made before its call), so
`backward()` runs eagerly between compiled segments, through that captured plan.
The whole call stays eager (the reason in `explain`) where splitting would change what runs: no
source (a lambda, a function made by `exec`), a generator or coroutine, `global`/`nonlocal`,
`del` of a name, zero-argument `super()`/`__class__`, private names a class mangles, a `return`
before the last segment, a closure made in one segment over a name another rebinds, a module with
hooks or a `__call__` of its own (a split calls `forward`'s segments, not `__call__`), or a break
outside the function's own statements (in a hook, or found after the call: a Python state change).
"""

from __future__ import annotations

import __future__
import ast
import builtins
import functools
import operator
import inspect
import textwrap
import types

from ember.jit import config

__all__ = ["Split", "split"]

_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)
_GENERATOR_FLAGS = inspect.CO_GENERATOR | inspect.CO_COROUTINE | inspect.CO_ASYNC_GENERATOR | \
    inspect.CO_ITERABLE_COROUTINE
_PREFIX = "_ember_"
_FUTURE_FLAGS = functools.reduce(operator.or_, (getattr(__future__, f).compiler_flag
                                                 for f in __future__.all_feature_names))
_MODULE_HOOKS = ("_forward_pre_hooks", "_forward_hooks", "_backward_hooks", "_backward_pre_hooks")


class _Unbound:
    """A name a segment left unbound (the next segment deletes it)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<unbound>"


UNBOUND = _Unbound()


class _Fallback(Exception):
    """The function cannot be split; the message says why."""


class _Body:
    """What a split works on: statements with a signature, as a function's or a segment's."""

    def __init__(self, args: ast.arguments, stmts: list, glb: dict, cells: dict, filename: str, name: str,
                 owner, self_name: str | None, defaults: tuple | None, kwdefaults: dict | None,
                 maybe_unbound: frozenset, tail: tuple | None, module, depth: int) -> None:
        self.args = args  # the signature of the first segment (no defaults or annotations in it)
        self.stmts = stmts
        self.glb = glb
        self.cells = cells  # closure name -> the original function's cell
        self.filename = filename
        self.name = name
        self.owner = owner  # the bound `self` (a method, a module's forward), passed to each segment
        self.self_name = self_name
        self.defaults = defaults
        self.kwdefaults = kwdefaults
        self.maybe_unbound = maybe_unbound  # parameters that may come as UNBOUND
        self.tail = tail  # a segment's live-out names (its result), None for the function itself
        self.module = module
        self.depth = depth

    def signature_names(self) -> list[str]:
        a = self.args
        names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
        names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
        return [n for n in names if n != self.self_name]


# --- names --------------------------------------------------------------------------------
def _reads(nodes) -> set[str]:
    """Every name loaded anywhere in `nodes`, nested scopes too (an over-approximation is only an extra argument);
    `total += v` reads `total`."""
    out = set()
    for node in nodes:
        for n in ast.walk(node):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load):
                out.add(n.id)
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name):
                out.add(n.target.id)
    return out


def _binders(nodes) -> set[str]:
    """The names `nodes` bind in the function's own scope (nested scopes bind their own, but their name here)."""
    out: set[str] = set()

    def visit(n) -> None:
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(n.name)
            for d in n.decorator_list:
                visit(d)
            return
        if isinstance(n, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            out.add(n.id)
        elif isinstance(n, ast.alias):
            out.add((n.asname or n.name).split(".")[0])
        elif isinstance(n, ast.ExceptHandler) and n.name:
            out.add(n.name)
        elif isinstance(n, (ast.MatchAs, ast.MatchStar)) and n.name:
            out.add(n.name)
        elif isinstance(n, ast.MatchMapping) and n.rest:
            out.add(n.rest)
        for c in ast.iter_child_nodes(n):
            visit(c)
    for node in nodes:
        visit(node)
    return out


def _sure_binders(stmts) -> set[str]:
    """The names bound by the top-level simple statements of `stmts` (bound whenever the segment ends normally)."""
    out: set[str] = set()
    for s in stmts:
        if isinstance(s, ast.AnnAssign) and s.value is None:
            continue
        if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Import, ast.ImportFrom, ast.FunctionDef,
                          ast.AsyncFunctionDef, ast.ClassDef)):
            out |= _binders([s])
    return out


def _own_scope(nodes):
    """The nodes of `nodes` outside nested scopes."""
    todo = list(nodes)
    while todo:
        n = todo.pop()
        yield n
        if not isinstance(n, _SCOPES):
            todo.extend(ast.iter_child_nodes(n))


def _check(body: _Body) -> None:
    """Raise `_Fallback` for what a split cannot keep (NOTE [ Compiled segments ])."""
    for n in _own_scope(body.stmts):
        if isinstance(n, (ast.Global, ast.Nonlocal)):
            raise _Fallback(f"a '{type(n).__name__.lower()}' statement (line {n.lineno})")
        if isinstance(n, ast.Delete) and any(isinstance(t, ast.Name) for t in n.targets):
            raise _Fallback(f"'del' of a local name (line {n.lineno})")
        if isinstance(n, (ast.Yield, ast.YieldFrom, ast.Await)):
            raise _Fallback(f"'{type(n).__name__.lower()}' (line {n.lineno})")
    for n in ast.walk(ast.Module(body=body.stmts, type_ignores=[])):
        ident = n.id if isinstance(n, ast.Name) else n.attr if isinstance(n, ast.Attribute) else None
        if ident == "__class__" or (isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and
                                    n.func.id == "super" and not n.args):
            raise _Fallback("zero-argument super() or __class__")
        if ident and ident.startswith("__") and not ident.endswith("__"):
            raise _Fallback(f"the private name {ident} (a class would mangle it)")
        if ident and ident.startswith(_PREFIX):
            raise _Fallback(f"the name {ident} (the segments' own prefix)")
    if body.self_name is not None and body.self_name in _binders(body.stmts):
        raise _Fallback(f"'{body.self_name}' rebound")


# --- the body of a function ----------------------------------------------------------------
def _function_body(cf) -> tuple:
    """The `_Body` of the function `cf` (a `CompiledFunction`) compiles and its code object, or raise `_Fallback`."""
    fn, module = cf.__wrapped__, cf._module
    func = getattr(fn, "__func__", fn)
    body = getattr(func, "_ember_body", None)
    if body is not None:  # a segment made by an earlier split
        return body, func.__code__
    owner = None
    if module is not None:
        call = type(module).__dict__.get("__call__") or getattr(type(module), "_call_impl", None)
        if getattr(call, "__name__", None) != "_call_impl":
            raise _Fallback("the module's __call__ is its own (not ember.nn's, which runs forward alone)")
        glb = getattr(call, "__globals__", {})
        if any(getattr(module, h, None) or glb.get(f"_global{h}") for h in _MODULE_HOOKS):
            raise _Fallback("the module has hooks, which run around its forward")
        func, owner = getattr(type(module), "forward", None), module
    elif isinstance(fn, types.MethodType):
        owner = fn.__self__
    code = getattr(func, "__code__", None)
    if not isinstance(func, types.FunctionType) or code is None:
        raise _Fallback("not a Python function")
    if code.co_flags & _GENERATOR_FLAGS:
        raise _Fallback("a generator or coroutine")
    try:
        lines, first = inspect.getsourcelines(func)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        raise _Fallback("its source is not available") from None
    fdef = tree.body[0] if tree.body else None
    if not isinstance(fdef, ast.FunctionDef) or fdef.name != func.__name__:
        raise _Fallback("its source is not a 'def' (a lambda)")
    ast.increment_lineno(tree, first - 1)
    if not _same_code(fdef, code):
        raise _Fallback("its source does not compile to its code (the file changed since it was loaded?)")
    args = fdef.args
    for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg):
        if a is not None:
            a.annotation = None
    args.defaults, args.kw_defaults = [], [None] * len(args.kwonlyargs)
    cells = dict(zip(code.co_freevars, func.__closure__ or ()))
    self_name = None
    if owner is not None:
        positional = [*args.posonlyargs, *args.args]
        if not positional:
            raise _Fallback("a method without a self parameter")
        self_name = positional[0].arg
    body = _Body(args, fdef.body, func.__globals__, cells, code.co_filename, func.__name__, owner, self_name,
                 func.__defaults__, func.__kwdefaults__, frozenset(), None, module, cf._segment_depth)
    _check(body)
    body.stmts = _hoist_return(body.stmts)
    return body, code


def _same_code(fdef: ast.FunctionDef, code) -> bool:
    """Whether `fdef`, compiled as `code` was (over the same free variables, with its `__future__` flags), gives
    `code`'s names and lines: `inspect` reads the file as it is now, which may not be what was loaded. (Not the
    bytecode itself: a .pyc of another patch release, or a tool rewriting code, makes other bytes.)"""
    free = ", ".join(code.co_freevars)
    wrapper = ast.parse(f"def {_PREFIX}check({free}):\n    pass")
    wrapper.body[0].body = [fdef]
    flags = code.co_flags & _FUTURE_FLAGS
    try:
        outer = builtins.compile(wrapper, code.co_filename, "exec", flags=flags, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    make = next(c for c in outer.co_consts if isinstance(c, types.CodeType))
    inner = next((c for c in make.co_consts if isinstance(c, types.CodeType) and c.co_name == code.co_name), None)
    return inner is not None and _fingerprint(inner) == _fingerprint(code)


def _fingerprint(code) -> tuple:
    lines = frozenset(ln for _s, _e, ln in code.co_lines() if ln is not None)
    return code.co_names, code.co_varnames, code.co_freevars, code.co_cellvars, lines


def _hoist_return(stmts: list) -> list:
    """`return a * 2, acc` as `_ember_r0 = a * 2` then `return _ember_r0, acc`: the items that are not names or
    constants computed before a return the driver runs, so a Python value returned beside tensors is no argument
    of a compiled segment (NOTE [ Compiled segments ])."""
    last = stmts[-1] if stmts else None
    value = last.value if isinstance(last, ast.Return) else None
    if isinstance(value, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in value.elts):
        items = value.elts
    elif isinstance(value, ast.Dict) and all(k is not None and _simple(k) for k in value.keys):
        items = value.values  # `return {"loss": loss, "acc": acc.item()}`
    else:
        return stmts
    if _simple(value):
        return stmts
    hoisted, elts = [], []
    for i, e in enumerate(items):
        if _simple(e):
            elts.append(e)
            continue
        name = ast.Name(f"{_PREFIX}r{i}", ast.Store())
        hoisted.append(ast.copy_location(ast.Assign(targets=[ast.copy_location(name, e)], value=e), last))
        elts.append(ast.copy_location(ast.Name(name.id, ast.Load()), e))
    if isinstance(value, ast.Dict):
        new = ast.Dict(keys=value.keys, values=elts)
    else:
        new = type(value)(elts=elts, ctx=ast.Load())
    return [*stmts[:-1], *hoisted, ast.copy_location(ast.Return(ast.copy_location(new, value)), last)]


# --- the split ----------------------------------------------------------------------------
class _Segment:
    __slots__ = ("call", "params", "outs", "kind", "lines", "returns", "first")

    def __init__(self, call, params: tuple, outs: tuple, kind: str, lines: tuple, returns: bool, first: bool) -> None:
        self.call = call  # a CompiledFunction, or the plain function of an eager segment
        self.params = params
        self.outs = outs
        self.kind = kind  # "compiled", "eager" (the breaking statement), "return" (a trailing return of names)
        self.lines = lines
        self.returns = returns
        self.first = first


class Split:
    """A function split at a graph break: calls run its segments in order (NOTE [ Compiled segments ])."""

    def __init__(self, segments: list, tail: tuple | None, line: int, reason: str) -> None:
        self.segments = segments
        self.tail = tail
        self.line = line
        self.reason = reason

    def __call__(self, *args, **kwargs):
        env: dict = {}
        for seg in self.segments:
            if seg.first:
                r = seg.call(*args, **kwargs)
            else:
                r = seg.call(*[env.get(n, UNBOUND) for n in seg.params])
            if seg.returns:
                return r
            for n, v in zip(seg.outs, r):
                env[n] = v
        return tuple(env.get(n, UNBOUND) for n in self.tail)

    def describe(self) -> list[str]:
        """One line per segment: its kind, its lines and its plans."""
        out = []
        for i, seg in enumerate(self.segments):
            where = f"lines {seg.lines[0]}-{seg.lines[1]}" if seg.lines[0] != seg.lines[1] else f"line {seg.lines[0]}"
            if seg.kind != "compiled":
                what = "eager, the break" if seg.kind == "eager" else "eager, the return"
                out.append(f"Segment {i} ({where}): {what}")
                continue
            ex = seg.call.explain()
            out.append(f"Segment {i} ({where}): compiled, {ex.graph_count} plan(s), {ex.captures} capture(s)")
            out += ["  " + line for line in str(ex).splitlines()[3:]]
        return out


def _simple(e) -> bool:
    """An expression of names and constants only (running it cannot touch a tensor's values)."""
    if e is None or isinstance(e, (ast.Name, ast.Constant)):
        return True
    if isinstance(e, (ast.Tuple, ast.List)):
        return all(_simple(x) for x in e.elts)
    if isinstance(e, ast.Starred):
        return _simple(e.value)
    if isinstance(e, ast.Dict):
        return all(_simple(x) for x in (*e.keys, *e.values))
    return False


def _has_return(stmts) -> bool:
    return any(isinstance(n, ast.Return) for n in _own_scope(stmts))


def split(cf, stack: list, reason: str):
    """A `Split` of `cf` (a `CompiledFunction`) at the break whose stack is `stack`, or the reason it cannot be."""
    try:
        body, code = _function_body(cf)
        if body.depth >= config.segment_depth_limit:
            raise _Fallback(f"segments split {body.depth} times deep (config.segment_depth_limit)")
        lines = [ln for c, ln in stack if c is code]
        if not lines:
            raise _Fallback("the break is not at a line of the function's own statements" if stack else
                            "the break was found after the call ran, at no line")
        line = lines[-1]  # the outermost frame of its code: the compiled call's own
        if line not in cf._splits:
            cf._splits[line] = _split(body, line, reason)
        return cf._splits[line]
    except _Fallback as e:
        return str(e)


def _split(body: _Body, line: int, reason: str) -> Split:
    stmts = body.stmts
    at = next((i for i, s in enumerate(stmts) if s.lineno <= line <= (s.end_lineno or s.lineno)), None)
    if at is None:
        raise _Fallback(f"line {line} is not inside a statement of the body")
    groups = [("compiled", stmts[:at]), ("eager", stmts[at:at + 1]), ("compiled", stmts[at + 1:])]
    last = groups[2][1]
    if body.tail is None and last and isinstance(last[-1], ast.Return) and _simple(last[-1].value):
        groups[2:] = [("compiled", last[:-1]), ("return", last[-1:])]
    groups = [(k, s) for k, s in groups if s]
    final = len(groups) - 1
    for i, (_k, s) in enumerate(groups):
        if (i < final or body.tail is not None) and _has_return(s):
            raise _Fallback(f"a 'return' before the last segment (line {s[0].lineno}-{s[-1].end_lineno})")
    reads = [_reads(s) - {body.self_name} for _k, s in groups]
    binds = [_binders(s) for _k, s in groups]
    tail = set(body.tail or ())
    sig = set(body.signature_names())
    _check_cells(body, binds, sig)
    segments = []
    available: set[str] = set()
    sure = sig - body.maybe_unbound
    for i, (kind, s) in enumerate(groups):
        later = set(tail).union(*reads[i + 1:])
        first = i == 0
        bound = binds[i] | sig if first else binds[i]
        outs = tuple(sorted(bound & later))
        params = () if first else tuple(sorted((reads[i] | (binds[i] & later)) & available))
        returns = body.tail is None and i == final
        unsure = set(params) - sure
        after = sure | _sure_binders(s)
        func = _generate(body, s, params, first, () if returns else outs, returns,
                         unsure if not first else body.maybe_unbound, set(outs) - after, i)
        lines = (s[0].lineno, s[-1].end_lineno or s[-1].lineno)
        if kind == "compiled":
            func._ember_body = _Body(body.args if first else _arguments(body.self_name, params), s, body.glb,
                                     body.cells, body.filename, body.name, body.owner, body.self_name,
                                     body.defaults if first else None, body.kwdefaults if first else None,
                                     body.maybe_unbound if first else frozenset(unsure),
                                     None if returns else outs, body.module, body.depth + 1)
            call = _compiled(func, body)
        else:
            call = func if body.owner is None else types.MethodType(func, body.owner)
        segments.append(_Segment(call, params, outs, kind, lines, returns, first))
        available |= set(outs)
        sure = after
    return Split(segments, body.tail, line, reason)


def _check_cells(body: _Body, binds: list, sig: set) -> None:
    """A nested function made in one segment (it may outlive it) over a name that more than one segment binds
    would keep reading its own segment's copy: refuse."""
    closed: set[str] = set()
    for n in _own_scope(body.stmts):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.GeneratorExp)):
            closed |= _reads([n])
    for name in sorted(closed):
        if sum(name in (b | sig if j == 0 else b) for j, b in enumerate(binds)) > 1:
            raise _Fallback(f"a nested function over {name!r}, which more than one segment binds")


def _arguments(self_name: str | None, params: tuple) -> ast.arguments:
    names = ([self_name] if self_name is not None else []) + list(params)
    return ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None, kwonlyargs=[],
                         kw_defaults=[], kwarg=None, defaults=[])


def _generate(body: _Body, stmts: list, params: tuple, first: bool, outs: tuple, returns: bool, unsure: set,
              maybe_out: set, index: int):
    """A function running `stmts`: it takes `params` (the first, the body's signature), deletes those passed as
    UNBOUND, and returns `outs` as a tuple (with `returns`, what `stmts` return: the function's result)."""
    lineno = stmts[0].lineno
    end = stmts[-1].end_lineno or stmts[-1].lineno
    pre = [ast.parse(f"if {p} is {_PREFIX}unbound:\n    del {p}").body[0] for p in sorted(unsure)]
    post = []
    if outs:
        names = []
        for n in outs:
            if n in maybe_out:
                post.append(ast.parse(f"try:\n    {_PREFIX}o_{n} = {n}\nexcept NameError:\n"
                                      f"    {_PREFIX}o_{n} = {_PREFIX}unbound").body[0])
                names.append(f"{_PREFIX}o_{n}")
            else:
                names.append(n)
        post.append(ast.parse(f"return ({', '.join(names)},)").body[0])
    elif not returns:
        post.append(ast.parse("return ()").body[0])
    for n in (*pre, *post):
        for m in ast.walk(n):
            if hasattr(m, "lineno"):
                m.lineno, m.end_lineno = (lineno, lineno) if n in pre else (end, end)
                m.col_offset, m.end_col_offset = 0, 0
    args = body.args if first else _arguments(body.self_name, params)
    inner = ast.FunctionDef(name=body.name, args=args, body=[*pre, *stmts, *post] or [ast.Pass()],
                            decorator_list=[], returns=None, type_comment=None, lineno=lineno, col_offset=0)
    free = sorted(body.cells) + [f"{_PREFIX}unbound"]
    outer = ast.FunctionDef(name=f"{_PREFIX}make", args=_arguments(None, tuple(free)),
                            body=[inner, ast.Return(ast.Name(body.name, ast.Load()))], decorator_list=[],
                            returns=None, type_comment=None, lineno=lineno, col_offset=0)
    for n in ast.walk(outer):  # the wrappers' own nodes: the segment's lines
        if "lineno" in n._attributes and getattr(n, "end_lineno", None) is None:
            n.lineno, n.end_lineno, n.col_offset, n.end_col_offset = lineno, end, 0, 0
    mod = ast.Module(body=[outer], type_ignores=[])
    ns: dict = {}
    exec(builtins.compile(mod, body.filename, "exec"), body.glb, ns)
    made = ns[f"{_PREFIX}make"](*[None] * len(free))
    cells = dict(body.cells)
    cells[f"{_PREFIX}unbound"] = types.CellType(UNBOUND)
    code = made.__code__
    func = types.FunctionType(code, body.glb, body.name, None, tuple(cells[n] for n in code.co_freevars))
    func.__qualname__ = f"{body.name} (segment {index})"
    if first:
        func.__defaults__ = body.defaults
        func.__kwdefaults__ = body.kwdefaults
    return func


def _compiled(func, body: _Body):
    """A compiled segment: a `CompiledFunction` of `func` (bound to the body's owner), one split deeper."""
    from ember.jit.compiler import CompiledFunction

    target = func if body.owner is None else types.MethodType(func, body.owner)
    cf = CompiledFunction(target, module=body.module)
    cf._segment_depth = body.depth + 1
    return cf
