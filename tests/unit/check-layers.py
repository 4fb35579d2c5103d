#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks the layering of libcpc's files (see ARCHITECTURE.md).

usage: check-layers.py SRCDIR BUILDDIR

SRCDIR is the library's source directory (libcpc/), BUILDDIR the
directory its objects were built in.  Two graphs between the library's
modules (a module is foo.c with foo.h, named by its path under SRCDIR):

  includes:  A -> B when a file of A has #include "B.h"
  calls:     A -> B when A's object uses a symbol B's object defines
             (nm: undefined in A, defined in B)

Fails if either graph has a cycle, or an edge goes up the layers:
a module may use modules of its own directory and of the directories
below it in LAYERS, nothing else; and the interfaces reach counters only
through the core (no edge from v1 or v2 into backend).  Prints both
graphs' edges with -v.
"""
import os
import re
import subprocess
import sys

# Lowest first.  v1 and v2 are one level: neither may use the other.
LAYERS = [["util"], ["events"], ["backend"], ["core"], ["v1", "v2"]]
# Edges that go down but skip the layer that must stand between.
FORBIDDEN = {("v1", "backend"), ("v2", "backend")}


def rank(module):
    top = module.split("/")[0] if "/" in module else ""
    for i, level in enumerate(LAYERS):
        if top in level:
            return i, top
    return None, top


def modules(srcdir):
    mods = {}
    for root, _, files in os.walk(srcdir):
        for f in files:
            if f.endswith((".c", ".h")):
                path = os.path.join(root, f)
                mod = os.path.relpath(path, srcdir)[:-2]
                mods.setdefault(mod, []).append(path)
    return mods


def include_edges(srcdir, mods):
    by_header = {}
    for mod, paths in mods.items():
        for p in paths:
            if p.endswith(".h"):
                by_header.setdefault(os.path.basename(p), []).append(mod)
    edges = set()
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for mod, paths in mods.items():
        for p in paths:
            with open(p, encoding="utf-8") as fh:
                for line in fh:
                    m = inc.match(line)
                    if not m:
                        continue
                    target = os.path.normpath(
                        os.path.join(os.path.dirname(p), m.group(1)))
                    rel = os.path.relpath(target, srcdir)
                    if os.path.exists(target) and not rel.startswith(".."):
                        dest = rel[:-2]
                    else:
                        found = by_header.get(os.path.basename(m.group(1)))
                        if not found:
                            continue  # a public or kmod header
                        if len(found) > 1:
                            sys.exit("ambiguous include %s in %s" %
                                     (m.group(1), p))
                        dest = found[0]
                    if dest != mod:
                        edges.add((mod, dest))
    return edges


def call_edges(builddir, mods):
    defined, undefined = {}, {}
    for root, _, files in os.walk(builddir):
        if os.path.basename(root) != ".libs":
            continue
        for f in files:
            if not f.endswith(".o"):
                continue
            rel = os.path.relpath(os.path.join(os.path.dirname(root), f),
                                  builddir)
            mod = rel[:-2]
            # automake may prefix objects with the target's name
            if mod not in mods:
                base = os.path.basename(mod).split("-", 1)[-1]
                cand = os.path.join(os.path.dirname(mod), base)
                mod = cand if cand in mods else mod
            out = subprocess.run(["nm", os.path.join(root, f)],
                                 capture_output=True, text=True,
                                 check=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[0] == "U":
                    undefined.setdefault(mod, set()).add(parts[1])
                elif len(parts) == 3 and parts[1] in "TDBRGSVW":
                    defined.setdefault(parts[2], set()).add(mod)
    if not undefined and not defined:
        sys.exit("no objects under %s: build the library first" % builddir)
    edges = set()
    for mod, syms in undefined.items():
        for s in syms:
            for dest in defined.get(s, ()):
                if dest != mod:
                    edges.add((mod, dest))
    return edges


def cycles(edges):
    """Strongly connected components of more than one module (Tarjan)."""
    graph = {}
    for a, b in edges:
        graph.setdefault(a, []).append(b)
        graph.setdefault(b, [])
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
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
            visit(v)
    return out


def upward(edges):
    bad = []
    for a, b in sorted(edges):
        ra, da = rank(a)
        rb, db = rank(b)
        if ra is None or rb is None:
            bad.append((a, b, "outside the layers"))
        elif rb > ra or (rb == ra and da != db):
            bad.append((a, b, "goes up or sideways"))
        elif (da, db) in FORBIDDEN:
            bad.append((a, b, "skips the core"))
    return bad


def main():
    args = [a for a in sys.argv[1:] if a != "-v"]
    verbose = "-v" in sys.argv[1:]
    if len(args) != 2:
        sys.exit(__doc__)
    srcdir, builddir = args
    mods = modules(srcdir)
    failed = False
    for name, edges in (("include", include_edges(srcdir, mods)),
                        ("call", call_edges(builddir, mods))):
        if verbose:
            for a, b in sorted(edges):
                print("%s: %s -> %s" % (name, a, b))
        bad = 0
        for comp in cycles(edges):
            print("%s cycle among: %s" % (name, " ".join(comp)))
            bad += 1
        for a, b, why in upward(edges):
            print("%s edge %s -> %s %s" % (name, a, b, why))
            bad += 1
        print("%s graph: %d modules, %d edges, %s" %
              (name, len({m for e in edges for m in e}), len(edges),
               "FAILED" if bad else "no cycle, all edges go down"))
        failed = failed or bad > 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
