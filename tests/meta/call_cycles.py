#!/usr/bin/env python3
"""No file-level call cycles inside a library (issue 23 point 5).

From each library's objects (nm), a file calls another when it uses a symbol that only that file
defines; every strongly connected component (Tarjan) of more than one file is a
cycle, reported with the symbols that tie it. ALLOWED lists the cycles not broken yet, each
with a reason; the goal is an empty list.  An entry whose files are all in a checked library
but no longer form that cycle is reported too, so the list only shrinks.

    call_cycles.py LIB...        check each library; each cycle as LIB: a.c -> b.c (sym) ...
                                 LIB.a: a static library (nm -A names each member);
                                 LIB.so: a shared module, whose .so alone no longer says which
                                 file defines what: its objects, in meson's private directory
                                 LIB.so.p beside it (none found there is an error, not a pass)
    call_cycles.py --self-test   a synthetic cyclic graph is reported, an acyclic one passes
"""
import ctypes
import ctypes.util
import os
import re
import subprocess
import sys

# Cycles not broken yet: the set of files of the cycle -> why it is still here.
ALLOWED = {}

# [ARCHIVE:]MEMBER.o:[VALUE] TYPE NAME, as nm -A prints each symbol of an archive or an object.
NM_LINE = re.compile(r'^(?:[^:]*\.a:)?([^:]+\.o):\s*(?:[0-9a-fA-F]+\s+)?(\S)\s+(\S+)$')


def parse_nm(text):
    """nm -A output -> (defs: file -> set of symbols, uses: file -> set of symbols)."""
    defs, uses = {}, {}
    for line in text.splitlines():
        m = NM_LINE.match(line)
        if not m:
            continue
        member, kind, name = m.group(1).rsplit('/', 1)[-1], m.group(2), m.group(3)
        member = member.replace('.c.o', '.c')
        defs.setdefault(member, set())
        uses.setdefault(member, set())
        if kind == 'U':
            uses[member].add(name)
        elif kind.isupper():
            defs[member].add(name)
    return defs, uses


def graph(defs, uses, libc=lambda name: False):
    owner = {}
    for f, syms in defs.items():
        for s in syms:
            if not libc(s):
                owner.setdefault(s, []).append(f)
    edges = {f: {} for f in defs}
    for f, syms in uses.items():
        for s in syms:
            o = owner.get(s)
            if o and len(o) == 1 and o[0] != f:
                edges[f].setdefault(o[0], set()).add(s)
    return edges


def sccs(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, {})):
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
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def in_libc(name):
    """Does the C library define name?  In a shared module that interposes libc (the LD_PRELOAD
    interposer and its LTTng twin), a file defining `fprintf` is a hook, and another file's
    fprintf call (LTTng's tracepoint code) is a call to libc that the hook lets through, not a
    call into the hook's file: such names are no edge."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(ctypes.util.find_library('c') or 'libc.so.6')
    return hasattr(_libc, name)


_libc = None


def cycles(text, libc=lambda name: False):
    edges = graph(*parse_nm(text), libc=libc)
    found = []
    for comp in sccs(edges):
        ties = []
        for a in comp:
            for b in comp:
                if b in edges[a]:
                    ties.append('%s -> %s (%s)' % (a, b, ', '.join(sorted(edges[a][b])[:3])))
        found.append((frozenset(comp), ties))
    return found


def objects_of(lib):
    """The nm input of a library: the archive, or a shared module's objects (LIB.so.p/*.o)."""
    if not lib.endswith('.so'):
        return [lib]
    d = lib + '.p'
    objs = sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith('.o')) \
        if os.path.isdir(d) else []
    if not objs:
        raise SystemExit('%s: no objects in %s (meson keeps a target\'s objects there)' % (lib, d))
    return objs


def stale(allowed, defs, found):
    """ALLOWED entries whose files are all in this library but no longer form that cycle."""
    now = {comp for comp, _ in found}
    return sorted((c for c in allowed if c <= set(defs) and c not in now), key=sorted)


def self_test():
    cyclic = ('lib.a:a.c.o:0000 T a_fn\nlib.a:a.c.o:         U b_fn\n'
              'lib.a:b.c.o:0000 T b_fn\nlib.a:b.c.o:         U a_fn\n'
              'lib.a:c.c.o:0000 T c_fn\nlib.a:c.c.o:         U a_fn\n')
    acyclic = ('lib.a:a.c.o:0000 T a_fn\nlib.a:a.c.o:         U b_fn\n'
               'lib.a:b.c.o:0000 T b_fn\nlib.a:b.c.o:         U c_fn\n'
               'lib.a:c.c.o:0000 T c_fn\nlib.a:c.c.o:         U memcpy\n')
    got = cycles(cyclic)
    ok = len(got) == 1 and got[0][0] == frozenset({'a.c', 'b.c'})
    ok = ok and any('a_fn' in t for t in got[0][1]) and any('b_fn' in t for t in got[0][1])
    ok = ok and cycles(acyclic) == []
    # a shared module's objects, as nm -A prints them (no archive: each object's own path)
    objs = ('b/m.so.p/a.c.o:0000 T a_fn\nb/m.so.p/a.c.o:         U b_fn\n'
            'b/m.so.p/.._x_b.c.o:0000 T b_fn\nb/m.so.p/.._x_b.c.o:         U a_fn\n')
    got = cycles(objs)
    ok = ok and len(got) == 1 and got[0][0] == frozenset({'a.c', '.._x_b.c'})
    # an interposer: hook.c defines fprintf and calls emit.c, whose fprintf is libc's
    hook = ('m.so.p/hook.c.o:0000 T fprintf\nm.so.p/hook.c.o:         U emit_fn\n'
            'm.so.p/emit.c.o:0000 T emit_fn\nm.so.p/emit.c.o:         U fprintf\n')
    ok = ok and len(cycles(hook)) == 1 and cycles(hook, libc=in_libc) == []
    ok = ok and in_libc('fprintf') and not in_libc('rp__enter')
    # an ALLOWED cycle that is gone is reported; one of another library's files is not
    allowed = {frozenset({'a.c', 'b.c'}), frozenset({'a.c', 'c.c'}), frozenset({'x.c', 'y.c'})}
    got = stale(allowed, parse_nm(cyclic)[0], cycles(cyclic))
    ok = ok and got == [frozenset({'a.c', 'c.c'})]
    print('self-test', 'ok' if ok else 'FAILED')
    return 0 if ok else 1


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    bad = 0
    for lib in argv[1:]:
        text = subprocess.run(['nm', '-A'] + objects_of(lib), capture_output=True, text=True,
                              check=True).stdout
        found = cycles(text, libc=in_libc if lib.endswith('.so') else lambda n: False)
        for comp, ties in found:
            if comp in ALLOWED:
                continue
            bad += 1
            print('%s: cycle among %s' % (lib, ' '.join(sorted(comp))))
            for t in ties:
                print('    ' + t)
        for comp in stale(ALLOWED, parse_nm(text)[0], found):
            bad += 1
            print('%s: ALLOWED lists a cycle among %s, which is gone: remove the entry'
                  % (lib, ' '.join(sorted(comp))))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
