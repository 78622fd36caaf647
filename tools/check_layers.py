#!/usr/bin/env python3
"""Module cycles and layer violations in the workspace's crates.

Reads every crate's module tree (`mod x;` from `lib.rs` / `main.rs`), and in
each module's code (comments, strings and `#[cfg(test)]` modules left out)
every path that names another module of the crate: `use` declarations and
paths written inline (`crate::a::b`, `super::x`, `self::x`, `child::x`).
Paths through re-exports (`pub use`) are followed to the module that
defines the item, so `use crate::ArrayShape` is an edge to `model::array`.
A `pub use` of a module's own descendants is only an alias, not an edge.

It then reports, and exits 1 on:

- a cycle between modules (files) of any crate of the workspace;
- in `xla-layout-core`, a module that uses a module of a higher layer;

except the known problems listed in `KNOWN`, each with its reason, which
are reported without failing (and reported again once gone, so that the
list only shrinks).

Layers of `xla-layout-core`, lowest first (a module may use its own layer
and the ones below it; a module belongs to the longest prefix listed):

 0 foundation     limits, const_eq, const_message, inline_str, similar, joined
 1 element_type   element_type (with the table of element-type names)
 2 model          model
 3 in words       text::human (the model in words; validation messages
                  use it)
 4 validate       validate
 5 text           text (lexer, parser, printer, spans, errors): the parser
                  validates a tuple's elements as XLA does, and spans
                  locate validation errors
 6 address        address (tiled addresses, sizes, digits, relayout)
 7 static_layout  static_layout
 8 view           view
 9 entry points   text::api (parse then validate), text::grid (offset grids
                  of tiled shapes), tpu (default TPU layouts),
                  text::forms (a shape in any written form: tpu, JAX, XLA)
10 interop        interop (ndarray, serde, bytemuck, dlpack, …)
11 root           the crate root (re-exports only)

The other crates (xla-layout-hlo, the macro, the CLI) are checked for
cycles only: each is one layer above the core.

Usage: tools/check_layers.py [--verbose]   (from anywhere; stdlib only)
--verbose also prints every crate's module graph.

Not seen: dependencies without a path in the importing module, such as
calling a method or a trait impl defined in another module (validation
formats shapes through `Display` impls that live in `text::print`).
"""

import os
import re
import sys
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# (layer name, module prefixes), lowest first. The docstring describes
# them; this list is what is checked (README.md points here).
CORE_LAYERS = [
    ("foundation", ["limits", "const_eq", "const_message", "inline_str", "similar", "joined"]),
    ("element_type", ["element_type"]),
    ("model", ["model"]),
    ("in words", ["text::human"]),
    ("validate", ["validate"]),
    ("text", ["text"]),
    ("address", ["address"]),
    ("static_layout", ["static_layout"]),
    ("view", ["view"]),
    ("entry points", ["text::api", "text::grid", "tpu", "text::forms"]),
    ("interop", ["interop"]),
    ("root", [""]),
]

LAYERS = {"xla-layout-core": CORE_LAYERS}

# Known problems and why each is still there: reported, but they do not
# fail the check (anything else does). An entry that no longer occurs is
# reported too, so that it is removed. Cycles are named by their modules.
KNOWN = {
    ("xla-layout-core", frozenset({"text::attributes", "text::parser", "text::spans"})): (
        "the attribute table is part of the grammar: each row says how the "
        "parser reads the attribute (calling the parser's steps), the parser "
        "walks the table, and the span map it fills is indexed by the table; "
        "one unit in three files"
    ),
}

EXTERNAL_ROOTS = {"core", "alloc", "std", "proc_macro"}


def strip_code(src):
    """The source with comments, string and char literals blanked (newlines
    kept, so line numbers hold)."""
    out = []
    i, n = 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("//", i):
            j = src.find("\n", i)
            j = n if j < 0 else j
            i = j
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append("\n" * src.count("\n", i, j))
            i = j
        elif (m := re.compile(r'b?r(#*)"').match(src, i)) and (
            i == 0 or not (src[i - 1].isalnum() or src[i - 1] == "_")
        ):
            end = '"' + m.group(1)
            j = src.find(end, m.end())
            j = n if j < 0 else j + len(end)
            out.append('""' + "\n" * src.count("\n", i, j))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            out.append('""' + "\n" * src.count("\n", i, j))
            i = j + 1
        elif c == "'":
            # A char literal ('a', '\n', '\u{1F}'), or a lifetime ('a).
            m = re.compile(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'").match(src, i)
            if m:
                out.append("' '")
                i = m.end()
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def matching_brace(text, open_pos):
    depth = 0
    for j in range(open_pos, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return j
    return len(text)


def parse_use_tree(tree):
    """`a::{b, c::d as e, self}` -> [(path segments, local name)]."""
    tree = re.sub(r"\s+as\s+", "\0", tree)  # `x as y` -> "x\0y"
    tree = re.sub(r"\s+", "", tree)
    out = []

    def walk(prefix, s):
        # Split s at top-level commas.
        parts, depth, start = [], 0, 0
        for k, ch in enumerate(s):
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            elif ch == "," and depth == 0:
                parts.append(s[start:k])
                start = k + 1
        parts.append(s[start:])
        for part in parts:
            if not part:
                continue
            brace = part.find("{")
            if brace >= 0:
                head = part[:brace].rstrip(":")
                segs = [x for x in head.split("::") if x] if head else []
                walk(prefix + segs, part[brace + 1 : part.rindex("}")])
                continue
            part, _, name = part.partition("\0")
            segs = [x for x in part.split("::") if x]
            if segs == ["self"]:
                full = prefix
            else:
                full = prefix + segs
            if not full:
                continue
            out.append((full, name or full[-1]))

    walk([], tree)
    return out


class Module:
    def __init__(self, path, file):
        self.path = path  # tuple of names, () for the crate root
        self.file = file
        self.children = {}  # name -> Module (file modules only)
        self.aliases = {}  # exported name -> (path segments, module path it is relative to)
        self.refs = []  # (segments, relative-to path, line, is_pub_use, text)

    @property
    def name(self):
        return "::".join(self.path) or "crate"


USE_RE = re.compile(r"\b(pub\s*(\([^)]*\))?\s*)?use\s+([^;]+);")
MOD_RE = re.compile(r"\bmod\s+([A-Za-z_]\w*)\s*([;{])")
PATH_RE = re.compile(r"(?<![\w$:])((?:crate|super|self|[a-z_]\w*)(?:\s*::\s*(?:[A-Za-z_]\w*|\{))+)")
VIS_IN_RE = re.compile(r"\bpub\s*\(\s*in\s+[^)]*\)|\bpub\s*\(\s*(super|self|crate)\s*\)")


def is_test(text, pos):
    """Whether the `mod` at `pos` is under `#[cfg(test)]`."""
    before = text[max(0, pos - 200) : pos]
    return re.search(r"#\[cfg\(test\)\]\s*(pub\s*(\([^)]*\))?\s*)?$", before) is not None


def load_crate(src_root, entry):
    modules = {}

    def load(path, file):
        m = Module(path, file)
        modules[path] = m
        text = strip_code(open(file, encoding="utf-8").read())
        directory = os.path.dirname(file)
        base = os.path.basename(file)
        if base not in ("lib.rs", "main.rs", "mod.rs"):
            directory = os.path.join(directory, base[:-3])
        # Inline modules: test modules are left out; others are scanned as
        # part of this file, with their path for `super`.
        spans = []  # (start, end, inline path or None for cfg(test))
        for mm in MOD_RE.finditer(text):
            if mm.group(2) != "{":
                continue
            end = matching_brace(text, mm.end() - 1)
            spans.append((mm.start(), end, None if is_test(text, mm.start()) else mm.group(1)))

        def scope_at(pos):
            inner = []
            for start, end, name in spans:
                if start <= pos <= end:
                    if name is None:
                        return None
                    inner.append(name)
            return path + tuple(inner)

        for mm in MOD_RE.finditer(text):
            if mm.group(2) != ";" or scope_at(mm.start()) != path or is_test(text, mm.start()):
                continue
            name = mm.group(1)
            for candidate in (
                os.path.join(directory, name + ".rs"),
                os.path.join(directory, name, "mod.rs"),
            ):
                if os.path.exists(candidate):
                    m.children[name] = load(path + (name,), candidate)
                    break
        used = set()
        for um in USE_RE.finditer(text):
            scope = scope_at(um.start())
            used.update(range(um.start(), um.end()))
            if scope is None:
                continue
            is_pub = bool(um.group(1))
            for segs, local in parse_use_tree(um.group(3)):
                if segs[0] == "$crate" or segs[-1] == "*":
                    segs = [s for s in segs if s != "*"]
                    if not segs or segs[0] == "$crate":
                        continue
                if is_pub and scope == path:
                    m.aliases[local] = (segs, scope)
                m.refs.append((segs, scope, line_of(text, um.start()), is_pub, "use " + "::".join(segs)))
        blanked = VIS_IN_RE.sub(lambda x: " " * len(x.group(0)), text)
        for pm in PATH_RE.finditer(blanked):
            if pm.start() in used:
                continue
            scope = scope_at(pm.start())
            if scope is None:
                continue
            segs = [s for s in re.split(r"\s*::\s*", pm.group(1)) if s and s != "{"]
            m.refs.append((segs, scope, line_of(text, pm.start()), False, "::".join(segs)))
        return m

    load((), os.path.join(src_root, entry))
    return modules


def resolve(modules, segs, scope, depth=0):
    """The module a path names (the deepest module on it, following
    re-exports), or None for paths outside the crate."""
    if depth > 20:
        return None
    file_path = scope
    while file_path not in modules:
        file_path = file_path[:-1]
    first = segs[0]
    if first == "crate":
        cur, rest = (), segs[1:]
    elif first in ("super", "self"):
        cur, rest = scope, segs
        while rest and rest[0] in ("super", "self"):
            if rest[0] == "super":
                cur = cur[:-1]
            rest = rest[1:]
    elif first in modules[file_path].children and scope == file_path:
        cur, rest = file_path, segs
    else:
        return None  # extern crate, std, a local item, or a name from a `use`
    while cur not in modules:
        cur = cur[:-1]  # inside an inline module: its file's module
    for k, seg in enumerate(rest):
        m = modules[cur]
        if seg in m.children:
            cur = m.children[seg].path
        elif seg in m.aliases:
            target, rel = m.aliases[seg]
            if target and target[-1] == seg and len(target) == 1 and rel == cur:
                return cur
            hit = resolve(modules, target, rel, depth + 1)
            return cur if hit is None else hit
        else:
            return cur
    return cur


def layer_of(module, layers):
    name = "::".join(module)
    best = None
    for rank, (layer, prefixes) in enumerate(layers):
        for p in prefixes:
            if p == "" or name == p or name.startswith(p + "::"):
                if best is None or len(p) > best[2]:
                    best = (rank, layer, len(p))
    return best[:2] if best else (len(layers), "?")


def cycles(graph):
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def one_cycle(graph, comp):
    """A shortest cycle through the first module of a component."""
    comp = set(comp)
    start = min(comp)
    prev, frontier, seen = {}, [start], {start}
    while frontier:
        nxt = []
        for v in frontier:
            for w in sorted(graph.get(v, ())):
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(prev[path[-1]])
                    return list(reversed(path)) + [start]
                if w in comp and w not in seen:
                    seen.add(w)
                    prev[w] = v
                    nxt.append(w)
        frontier = nxt
    return [start]


def crates():
    """(package name, src dir, entry file) of every workspace member."""
    with open(os.path.join(ROOT, "Cargo.toml"), "rb") as f:
        root = tomllib.load(f)
    dirs = ["."] + root.get("workspace", {}).get("members", [])
    for d in dirs:
        manifest = os.path.join(ROOT, d, "Cargo.toml")
        if not os.path.exists(manifest):
            continue
        with open(manifest, "rb") as f:
            name = tomllib.load(f).get("package", {}).get("name", d)
        for entry in ("lib.rs", "main.rs"):
            if os.path.exists(os.path.join(ROOT, d, "src", entry)):
                yield name, os.path.join(ROOT, d, "src"), entry


def main():
    verbose = "--verbose" in sys.argv[1:]
    problems, known_seen, checked = 0, set(), set()

    def report(key, text):
        nonlocal problems
        if key in KNOWN:
            known_seen.add(key)
            print(f"{text}\n    known: {KNOWN[key]}")
        else:
            problems += 1
            print(text)

    for name, src, entry in crates():
        modules = load_crate(src, entry)
        checked.add(name)
        layers = LAYERS.get(name)
        graph, where = {}, {}
        for m in modules.values():
            for segs, scope, line, is_pub, text in m.refs:
                target = resolve(modules, segs, scope)
                if target is None or target == m.path:
                    continue
                # Re-exporting a descendant only names it.
                if is_pub and target[: len(m.path)] == m.path:
                    continue
                graph.setdefault(m.path, set()).add(target)
                where.setdefault((m.path, target), (os.path.relpath(m.file, ROOT), line, text))
        edges = sum(len(v) for v in graph.values())
        print(f"{name} ({os.path.relpath(src, ROOT)}/{entry}): {len(modules)} modules, {edges} edges")

        def name_of(p):
            return "::".join(p) or "crate"

        if verbose:
            for v in sorted(graph):
                print(f"  {name_of(v)} -> {', '.join(name_of(w) for w in sorted(graph[v]))}")
        if layers:
            for (a, b), (file, line, text) in sorted(where.items()):
                (ra, la), (rb, lb) = layer_of(a, layers), layer_of(b, layers)
                if rb > ra:
                    report(
                        (name, name_of(a), name_of(b)),
                        f"  layer violation: {name_of(a)} ({la}) uses {name_of(b)} ({lb}): "
                        f"{file}:{line}: {text}",
                    )
            for m in modules:
                if layer_of(m, layers)[1] == "?":
                    problems += 1
                    print(f"  module {name_of(m)} is in no layer: add it to LAYERS")
        for comp in cycles(graph):
            path = one_cycle(graph, comp)
            lines = [f"  cycle among {', '.join(name_of(c) for c in comp)}:"]
            for a, b in zip(path, path[1:]):
                file, line, text = where[(a, b)]
                lines.append(f"    {name_of(a)} -> {name_of(b)}: {file}:{line}: {text}")
            report((name, frozenset(name_of(c) for c in comp)), "\n".join(lines))
    for key in KNOWN:
        if key[0] in checked and key not in known_seen:
            what = " -> ".join(key[1:]) if len(key) == 3 else "cycle " + ", ".join(sorted(key[1]))
            print(f"note: {key[0]}: known {what} no longer occurs: remove it from KNOWN")
    if problems:
        print(f"{problems} problem(s)")
        return 1
    tail = f" ({len(known_seen)} known, listed above)" if known_seen else ""
    print(f"no new module cycles, no new imports from a higher layer{tail}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
