#!/usr/bin/env python3
"""No file-level call cycles inside a library (issue 23 point 5).

From each static library's objects (nm), a file calls another when it uses a symbol that only
that file defines; every strongly connected component (Tarjan) of more than one file is a
cycle, reported with the symbols that tie it. ALLOWED lists the cycles not broken yet, each
with a reason; the goal is an empty list.

    call_cycles.py LIB.a...      check each library; each cycle as LIB: a.c -> b.c (sym) ...
    call_cycles.py --self-test   a synthetic cyclic graph is reported, an acyclic one passes
"""
import re
import subprocess
import sys

# Cycles not broken yet: the set of files of the cycle -> why it is still here.
ALLOWED = {
    frozenset({'strace.c', 'strace_fd.c', 'strace_sys.c'}):
        'strace importer: the strace helper owns it',
    frozenset({'backends_nfs.c', 'backends_nfs_meta.c', 'backends_nfs_ops.c'}):
        'nfs backend: shared state in nfs.c used by meta/ops and back; not split yet',
    frozenset({'backends_fault.c', 'backends_registry.c'}):
        'the fault backend wraps registry lookups that name it; not split yet',
    frozenset({'client.c', 'client_thread.c', 'ntsem.c', 'order.c', 'share.c', 'window.c'}):
        'replay core: the engine helper removes this as it lands',
    frozenset({'flush.c', 'report.c'}):
        'replay core (flush <-> report): the engine helper removes this as it lands',
}

# ARCHIVE:MEMBER.o:[VALUE] TYPE NAME, as nm -A prints each symbol of an archive.
NM_LINE = re.compile(r'^.*?:([^:]+\.o):\s*(?:[0-9a-fA-F]+\s+)?(\S)\s+(\S+)$')


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


def graph(defs, uses):
    owner = {}
    for f, syms in defs.items():
        for s in syms:
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


def cycles(text):
    edges = graph(*parse_nm(text))
    found = []
    for comp in sccs(edges):
        ties = []
        for a in comp:
            for b in comp:
                if b in edges[a]:
                    ties.append('%s -> %s (%s)' % (a, b, ', '.join(sorted(edges[a][b])[:3])))
        found.append((frozenset(comp), ties))
    return found


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
    print('self-test', 'ok' if ok else 'FAILED')
    return 0 if ok else 1


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    bad = 0
    for lib in argv[1:]:
        text = subprocess.run(['nm', '-A', lib], capture_output=True, text=True,
                              check=True).stdout
        for comp, ties in cycles(text):
            if comp in ALLOWED:
                continue
            bad += 1
            print('%s: cycle among %s' % (lib, ' '.join(sorted(comp))))
            for t in ties:
                print('    ' + t)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
