#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The project's mutation check ("make check-mutants").

Each mutant of tests/quality/mutants*.txt (mutants.txt, whose head
describes the format, and the lists of one area each beside it, so that
no file grows past 700 lines) is one small deliberate bug: a
code snippet of one file, replaced by another.  For each one, in a scratch
copy of the tree (never the checkout itself), this script applies the
substitution, rebuilds, runs the tests the mutant names, and restores the
file.  A mutant is killed when one of those tests fails (or hangs past the
time limit); it survives when they all pass.  The check fails if any
mutant survives, and also, loudly, if a mutant no longer applies: its file
or its snippet is not found (or found twice), or the mutated tree does not
compile.  Then the list must follow the code.

Files are found by their base name anywhere in the tree (or by as much
of the path's end as tells two apart: v1/bind.c), and sites by their
text (whitespace-insensitive), never by full path or line number, so that
the list survives files moving around.

A mutant's kmod: tests are tests (or suites) of kmod_test, the kernel
module's own tests (tests/kmod/ktest, "kmod_test -l"), run as root (or,
with --user among them, as uid 65534 in the device's group) in the qemu
guest (tests/kmod/vm-run) on every kernel check-kmod tests, until one
fails.

Usage: mutate.py TOP_SRCDIR WORKDIR [--ci] [--only ID,...] [--list|--dry-run]
(--dry-run: only checks that every mutant applies.)
Environment: MAKE (make), MUTANT_TIMEOUT (seconds per test run, 300), KVER
(the one kernel for kmod: tests; default every kernel check-kmod tests).
"""

import glob
import os
import re
import shutil
import subprocess
import sys
import time

LIST_GLOB = "mutants*.txt"


class Mutant:
    def __init__(self, ident, lineno):
        self.ident = ident
        self.lineno = lineno
        self.file = None
        self.tests = []
        self.make = None
        self.vm = []
        self.kmod = []
        self.ci = False
        self.why = ""
        self.old = []
        self.new = []


def parse(path):
    """Reads the mutant list; see the head of mutants.txt for its format."""
    mutants = []
    cur = None
    errors = []
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith("#") or not line.strip():
                continue
            m = re.match(r"^\[([A-Za-z0-9_.-]+)\]\s*$", line)
            if m:
                cur = Mutant(m.group(1), n)
                mutants.append(cur)
                continue
            if cur is None:
                errors.append(f"{path}:{n}: text before the first [mutant]")
                continue
            if line.startswith("- ") or line == "-":
                cur.old.append(line[2:])
            elif line.startswith("+ ") or line == "+":
                cur.new.append(line[2:])
            else:
                m = re.match(r"^(file|tests|vm|kmod|make|ci|why):\s*(.*)$",
                             line)
                if not m:
                    errors.append(f"{path}:{n}: cannot parse: {line}")
                    continue
                key, val = m.group(1), m.group(2).strip()
                if key == "file":
                    cur.file = val
                elif key == "tests":
                    cur.tests = val.split()
                elif key == "vm":
                    cur.vm = val.split()
                elif key == "kmod":
                    cur.kmod = val.split()
                elif key == "make":
                    cur.make = val
                elif key == "ci":
                    cur.ci = val == "yes"
                elif key == "why":
                    cur.why = val
    seen = set()
    for m in mutants:
        where = f"{path}:{m.lineno}: [{m.ident}]"
        if m.ident in seen:
            errors.append(f"{where}: duplicate name")
        seen.add(m.ident)
        if not m.file or not m.old or not (m.tests or m.make or m.vm or
                                           m.kmod):
            errors.append(f"{where}: needs file:, '- ' lines and tests:, "
                          f"vm:, kmod: or make:")
        if m.old == m.new:
            errors.append(f"{where}: replacement equals the original")
    return mutants, errors


def tracked_files(src):
    out = subprocess.run(["git", "-c", "safe.directory=*", "-C", src,
                          "ls-files", "-z"],
                         stdout=subprocess.PIPE, check=True).stdout
    return [p for p in out.decode().split("\0") if p]


def copy_tree(src, dst):
    """The checkout as it is now (uncommitted edits included), tracked
    files only."""
    if os.path.isdir(dst):
        shutil.rmtree(dst)
    for rel in tracked_files(src):
        s = os.path.join(src, rel)
        d = os.path.join(dst, rel)
        if not os.path.lexists(s):
            continue  # deleted in the work tree
        os.makedirs(os.path.dirname(d), exist_ok=True)
        shutil.copy2(s, d, follow_symlinks=False)


def find_by_basename(tree, files, name):
    """Files whose path ends with name: a base name, or as much of the
    path as tells it apart (v1/bind.c)."""
    return [p for p in files if p == name or p.endswith("/" + name)]


def snippet_regex(lines):
    """The snippet's text with any run of whitespace matching any other."""
    text = "\n".join(lines)
    chunks = text.split()
    return re.compile(r"\s+".join(re.escape(c) for c in chunks))


def run(cmd, cwd, log, timeout=None):
    with open(log, "a", encoding="utf-8") as f:
        f.write(f"\n$ {' '.join(cmd)}\n")
        f.flush()
        try:
            p = subprocess.run(cmd, cwd=cwd, stdout=f, stderr=subprocess.STDOUT,
                               timeout=timeout, start_new_session=True)
            return p.returncode
        except subprocess.TimeoutExpired:
            f.write("\n(timed out)\n")
            return "timeout"


def test_targets(m, files, names=None):
    """Automake test names of the mutant's tests, found by base name:
    test_x.c gives the program test_x, a script is itself."""
    targets = []
    for t in (m.tests if names is None else names):
        name = t if re.search(r"\.(sh|c)$", t) else t + ".c"
        hits = find_by_basename(None, files, name)
        if len(hits) != 1:
            return None, f"test {t}: {len(hits)} files named {name}"
        p = hits[0]
        targets.append(p[:-2] if p.endswith(".c") else p)
    return targets, None


KMOD_TEST_DIR = "tests/kmod/ktest"
KMOD_TEST = "tests/kmod/kmod_test"


def kmod_test_names(tree):
    """The names kmod_test takes: its tests and suites, from the tables
    of tests/kmod/ktest/kt_*.c ("kmod_test -l" lists the same)."""
    names = set()
    d = os.path.join(tree, KMOD_TEST_DIR)
    for f in sorted(os.listdir(d)) if os.path.isdir(d) else []:
        if f.startswith("kt_") and f.endswith(".c"):
            with open(os.path.join(d, f), encoding="utf-8") as fh:
                text = fh.read()
            names.update(re.findall(r'\{\s*"([a-z0-9_]+)",\s*test_', text))
            names.update(re.findall(r"^KT_SUITE\((\w+),", text, re.M))
    return names


def kmod_kernels(tree):
    """The kernels check-kmod tests (kmod-lib.sh's kmod_list_kernels), or
    only $KVER when set."""
    if os.environ.get("KVER"):
        return [os.environ["KVER"]]
    lib = os.path.join(tree, "tests/kmod/kmod-lib.sh")
    out = subprocess.run(["bash", "-c", '. "$0" && kmod_list_kernels', lib],
                         stdout=subprocess.PIPE, check=False).stdout
    return out.decode().split()


def failed_tests(tree, targets):
    """The tests of the last run that did not pass, from their .trs files."""
    bad = []
    for t in targets:
        trs = os.path.join(tree, t + ".trs")
        try:
            with open(trs, encoding="utf-8") as f:
                res = re.search(r":test-result: (\S+)", f.read())
        except OSError:
            res = None
        r = res.group(1) if res else "ERROR"
        if r not in ("PASS", "SKIP"):
            bad.append(f"{os.path.basename(t)}:{r}")
        elif r == "SKIP":
            bad.append(f"{os.path.basename(t)}:SKIP")
    return bad


def run_kmod_test(vm_run, tree, log, limit, kver, names):
    """kmod_test NAMES as root in the guest of kernel kver."""
    env_cmd = ["env", f"KVER={kver}", vm_run, "--timeout", str(limit),
               os.path.join(tree, KMOD_TEST)] + names
    return run(env_cmd, tree, log, limit * 2)


def main(argv):
    args = argv[1:]
    ci = "--ci" in args
    list_only = "--list" in args
    dry_run = "--dry-run" in args
    only = None
    if "--only" in args:
        only = set(args[args.index("--only") + 1].split(","))
    pos = [a for i, a in enumerate(args)
           if not a.startswith("--") and (i == 0 or args[i - 1] != "--only")]
    if len(pos) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    src, work = os.path.abspath(pos[0]), os.path.abspath(pos[1])
    make = os.environ.get("MAKE", "make")
    limit = int(os.environ.get("MUTANT_TIMEOUT", "300"))

    here = os.path.dirname(os.path.abspath(__file__))
    mutants, errors = [], []
    for listpath in sorted(glob.glob(os.path.join(here, LIST_GLOB))):
        found, errs = parse(listpath)
        mutants += found
        errors += errs
    seen = {}
    for m in mutants:
        if m.ident in seen and seen[m.ident] is not m:
            errors.append(f"[{m.ident}]: named twice in the lists")
        seen[m.ident] = m
    if errors:
        print("\n".join(errors), file=sys.stderr)
        return 1
    if ci:
        mutants = [m for m in mutants if m.ci]
    if only is not None:
        unknown = only - {m.ident for m in mutants}
        if unknown:
            print(f"check-mutants: no mutant named {', '.join(sorted(unknown))}",
                  file=sys.stderr)
            return 1
        mutants = [m for m in mutants if m.ident in only]
    if list_only:
        for m in mutants:
            runs = m.tests + ['vm:' + v for v in m.vm] + \
                ['kmod:' + k for k in m.kmod]
            print(f"{m.ident:32} {m.file:18} {' '.join(runs) or m.make}"
                  f"{'  (ci)' if m.ci else ''}")
        print(f"{len(mutants)} mutants")
        return 0

    start = time.monotonic()
    tree = os.path.join(work, "src")
    log = os.path.join(work, "mutants.log")
    os.makedirs(work, exist_ok=True)
    open(log, "w").close()
    print(f"check-mutants: {len(mutants)} mutants; scratch tree {tree}, "
          f"log {log}", flush=True)
    copy_tree(src, tree)
    files = tracked_files(src)
    files = [p for p in files if os.path.exists(os.path.join(tree, p))]

    # Every mutant must apply before anything is built.
    plan = []
    known_kmod = kmod_test_names(tree)
    for m in mutants:
        hits = find_by_basename(tree, files, m.file)
        if len(hits) != 1:
            errors.append(f"[{m.ident}]: {len(hits)} files named {m.file}")
            continue
        path = os.path.join(tree, hits[0])
        with open(path, encoding="utf-8") as f:
            text = f.read()
        found = list(snippet_regex(m.old).finditer(text))
        if len(found) != 1:
            errors.append(f"[{m.ident}]: the snippet is found {len(found)} "
                          f"times in {hits[0]} (the list must follow the "
                          f"code):\n    " + "\n    ".join(m.old))
            continue
        targets, err = test_targets(m, files) if m.tests else ([], None)
        if err:
            errors.append(f"[{m.ident}]: {err}")
            continue
        vm_progs, err = test_targets(m, files, m.vm) if m.vm else ([], None)
        if err:
            errors.append(f"[{m.ident}]: {err}")
            continue
        unknown = [k for k in m.kmod
                   if k not in known_kmod and k not in ("--user",
                                                        "--stranger")]
        if unknown:
            errors.append(f"[{m.ident}]: kmod_test has no test or suite "
                          f"named {' '.join(unknown)}")
            continue
        span = found[0].span()
        mutated = text[:span[0]] + "\n".join(m.new) + text[span[1]:]
        plan.append((m, path, text, mutated, targets, vm_progs))
    if errors:
        print("check-mutants: the list no longer applies:", file=sys.stderr)
        print("\n".join(errors), file=sys.stderr)
        return 1
    if dry_run:
        print(f"check-mutants: all {len(plan)} mutants apply")
        return 0

    if run(["autoreconf", "-fi"], tree, log) != 0 or \
       run(["./configure", "--enable-werror"], tree, log) != 0 or \
       run([make, "-j2"], tree, log) != 0:
        print(f"check-mutants: the unmutated tree does not build (see {log})",
              file=sys.stderr)
        return 1
    # Without mutants every test used must pass, or a kill means nothing.
    all_targets = sorted({t for p in plan for t in p[4]})
    all_vm = sorted({t for p in plan for t in p[5]})
    vm_run = None
    if all_vm or any(p[0].kmod for p in plan):
        hits = find_by_basename(tree, files, "vm-run")
        if len(hits) != 1:
            print("check-mutants: tests/kmod/vm-run not found", file=sys.stderr)
            return 1
        vm_run = os.path.join(tree, hits[0])
    rc = run([make, "-j2", "check", "TESTS=" + " ".join(all_targets)], tree,
             log, limit * 2)
    bad = failed_tests(tree, all_targets)
    if rc != 0 or bad:
        print(f"check-mutants: without mutants these tests do not pass: "
              f"{' '.join(bad) or rc} (see {log})", file=sys.stderr)
        return 1
    for prog in all_vm:
        if run([vm_run, "--timeout", str(limit), prog], tree, log,
               limit * 2) != 0:
            print(f"check-mutants: without mutants {prog} fails in the "
                  f"kmod guest (see {log})", file=sys.stderr)
            return 1
    all_kmod = sorted({k for p in plan for k in p[0].kmod})
    kernels = []
    if all_kmod:
        kernels = kmod_kernels(tree)
        if not kernels or run([make, "kmod-test"], tree, log) != 0:
            print(f"check-mutants: no kernel for the kmod guest, or "
                  f"kmod_test does not build (see {log})", file=sys.stderr)
            return 1
        for kver in kernels:
            if run_kmod_test(vm_run, tree, log, limit, kver, all_kmod) != 0:
                print(f"check-mutants: without mutants kmod_test "
                      f"{' '.join(all_kmod)} fails on {kver} (see {log})",
                      file=sys.stderr)
                return 1
    makes = sorted({p[0].make for p in plan if p[0].make})
    for target in makes:
        if run([make, target], tree, log, limit * 2) != 0:
            print(f"check-mutants: without mutants 'make {target}' fails "
                  f"(see {log})", file=sys.stderr)
            return 1
    base = time.monotonic() - start
    print(f"check-mutants: baseline built and passed in {base:.0f} s",
          flush=True)

    killed, survived, broken = 0, [], []
    for m, path, text, mutated, targets, vm_progs in plan:
        t0 = time.monotonic()
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"\n===== [{m.ident}] {m.why}\n")
        with open(path, "w", encoding="utf-8") as f:
            f.write(mutated)
        try:
            if run([make, "-j2", "check", "TESTS="], tree, log) != 0:
                broken.append(m.ident)
                verdict = "DOES NOT COMPILE"
            else:
                by = []
                if targets:
                    rc = run([make, "-j2", "check", "TESTS=" + " ".join(targets)],
                             tree, log, limit)
                    by = failed_tests(tree, targets)
                    if rc == "timeout":
                        by.append("timeout")
                    elif rc != 0 and not by:
                        by.append(f"make exit {rc}")
                for prog in vm_progs:
                    if by:
                        break
                    rc = run([vm_run, "--timeout", str(limit), prog], tree,
                             log, limit * 2)
                    if rc != 0:
                        by.append(f"{os.path.basename(prog)} in the kmod "
                                  f"guest: {rc}")
                if m.kmod and not by and \
                        run([make, "kmod-test"], tree, log) != 0:
                    by.append("kmod_test does not build")
                for kver in kernels if m.kmod else []:
                    if by:
                        break
                    rc = run_kmod_test(vm_run, tree, log, limit, kver, m.kmod)
                    if rc != 0:
                        by.append(f"kmod_test {' '.join(m.kmod)} on {kver}: "
                                  f"{rc}")
                if m.make and not by:
                    rc = run([make, m.make], tree, log, limit * 2)
                    if rc != 0:
                        by.append(f"make {m.make}: {rc}")
                if by:
                    killed += 1
                    verdict = "killed by " + ", ".join(by)
                else:
                    survived.append(m.ident)
                    verdict = "SURVIVED"
        finally:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)
        print(f"  [{m.ident}] {verdict} ({time.monotonic() - t0:.0f} s)",
              flush=True)

    total = len(plan)
    elapsed = time.monotonic() - start
    print(f"check-mutants: {killed} of {total} mutants killed "
          f"({elapsed:.0f} s)")
    if survived:
        print(f"check-mutants: SURVIVED: {' '.join(survived)}")
    if broken:
        print(f"check-mutants: do not compile (fix the list): "
              f"{' '.join(broken)}")
    return 0 if killed == total else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
