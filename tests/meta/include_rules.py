#!/usr/bin/env python3
"""The one-way include rule, checked over every #include of every .c and .h (docs/ARCHITECTURE.md).

    cli -> {replay, converters, capture} -> formats
    cli -> results -> formats

  - formats/ includes no other library of ours;
  - capture/, replay/ and converters/ include formats/ and themselves only;
  - results/ (what is made of results: compare's loader, statistics, reports) includes
    formats/ and itself only, and only cli/, tests/ and bench/ include it;
  - nothing outside cli/ includes cli/;
  - inside capture/ the layers point down: net/ includes no rpc/, smb/ or pcap/;
    rpc/ and smb/ include no net/ or pcap/ (they see connections and messages through
    decode.h) and not each other; the top level (capctx, decode.h) includes no layer;
    lttng/ (the LTTng-UST emitter) includes preload/'s emitter interface, nothing else;
    session/ (a program's syscall capture, capture/session.h) includes preload/ and lttng/;
  - no cycle of #includes among headers.

tests/ and bench/ may include any library's internals (they test them), but not cli/.

    include_rules.py ROOT         check the tree at ROOT; each violation as FILE:LINE: why
    include_rules.py --self-test  plant each kind of violation in a scratch tree and check
                                  that every one is reported, and that a clean tree passes
"""
import os
import re
import sys
import tempfile

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
LIBS = ('formats', 'capture', 'replay', 'converters', 'results', 'cli')
SCANNED = LIBS + ('tests', 'bench')
# What each library may include (besides system headers).
ALLOWED = {
    'formats': {'formats'},
    'capture': {'capture', 'formats'},
    'replay': {'replay', 'formats'},
    'converters': {'converters', 'formats'},
    'results': {'results', 'formats'},
    'cli': {'cli', 'capture', 'replay', 'converters', 'results', 'formats'},
    'tests': {'tests', 'capture', 'replay', 'converters', 'results', 'formats'},
    'bench': {'bench', 'capture', 'replay', 'converters', 'results', 'formats'},
}
# capture/'s layers: what a file in the key layer may include of capture/ ('' = the top level).
CAPTURE_LAYERS = {
    '': {''},
    'net': {'', 'net'},
    'rpc': {'', 'rpc'},
    'smb': {'', 'smb'},
    'pcap': {'', 'pcap', 'net', 'rpc', 'smb'},
    'preload': {'preload'},  # the interposer and the spool reader: formats/sysev.h and their own headers
    'lttng': {'lttng', 'preload'},  # the LTTng emitter implements preload/emit.h
    'session': {'', 'session', 'preload', 'lttng'},  # a program's syscall capture (session.h) over the spool
}


def sources(root):
    for top in SCANNED:
        for d, dirs, files in os.walk(os.path.join(root, top)):
            dirs.sort()
            for f in sorted(files):
                if f.endswith(('.c', '.h')):
                    yield os.path.relpath(os.path.join(d, f), root)


def includes(root, rel):
    """(line number, included path as written, resolved path relative to root or None)."""
    with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as fh:
        for n, line in enumerate(fh, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            name = m.group(1)
            here = os.path.normpath(os.path.join(os.path.dirname(rel), name))
            if os.path.isfile(os.path.join(root, here)):
                yield n, name, here  # beside the includer (tests' "pkt.h")
            elif os.path.isfile(os.path.join(root, name)):
                yield n, name, os.path.normpath(name)
            else:
                yield n, name, None


def capture_layer(rel):
    parts = rel.split('/')
    return parts[1] if len(parts) > 2 else ''


def check(root):
    errors = []
    graph = {}
    for rel in sources(root):
        lib = rel.split('/')[0]
        for n, name, target in includes(root, rel):
            if target is None:
                # a header the build generates from NAME.in (meson vcs_tag/configure_file) is there at build time
                if os.path.exists(os.path.join(root, name + '.in')):
                    continue
                if name.split('/')[0] in LIBS:
                    errors.append(f'{rel}:{n}: #include "{name}": no such file')
                continue
            tlib = target.split('/')[0]
            if rel.endswith('.h') and target.endswith('.h'):
                graph.setdefault(rel, []).append((n, target))
            if tlib == 'cli' and lib != 'cli':
                errors.append(f'{rel}:{n}: {lib}/ includes "{name}": nothing outside cli/ includes cli/')
            elif tlib in LIBS and tlib not in ALLOWED[lib]:
                errors.append(f'{rel}:{n}: {lib}/ includes "{name}": {lib}/ may include only '
                              + ', '.join(sorted(x + '/' for x in ALLOWED[lib] if x in LIBS)))
            elif lib == 'capture' and tlib == 'capture':
                have, want = capture_layer(rel), capture_layer(target)
                if want not in CAPTURE_LAYERS.get(have, {''}):
                    errors.append(f'{rel}:{n}: capture/{have or "(top)"} includes "{name}": capture/'
                                  f'{have or "(top)"} may include only '
                                  + ', '.join(sorted('capture/' + (x + '/' if x else '(top)')
                                                     for x in CAPTURE_LAYERS.get(have, {''}))))
    errors.extend(cycles(graph))
    return errors


def cycles(graph):
    """Every include cycle among headers, once each, as header:line -> header:line -> ..."""
    found, seen_cycles = [], set()
    state = {}  # 1 on the DFS stack, 2 done
    stack = []

    def visit(h):
        state[h] = 1
        stack.append(h)
        for n, t in graph.get(h, []):
            if state.get(t) == 1:
                loop = stack[stack.index(t):]
                key = frozenset(loop)
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    hops = []
                    for i, x in enumerate(loop):
                        nxt = loop[(i + 1) % len(loop)]
                        line = next(ln for ln, y in graph[x] if y == nxt)
                        hops.append(f'{x}:{line}')
                    found.append(f'{hops[0]}: include cycle: ' + ' -> '.join(hops) + f' -> {loop[0]}')
            elif t not in state:
                visit(t)
        stack.pop()
        state[h] = 2

    for h in sorted(graph):
        if h not in state:
            visit(h)
    return found


def self_test():
    planted = {
        'formats/a.h': '#include "capture/capture.h"\n',              # formats includes a library
        'formats/b.c': '#include "formats/a.h"\n#include "replay/r.h"\n',
        'capture/capture.h': '#include "formats/a.h"\n',
        'capture/c.c': '\n#include "replay/r.h"\n',                   # capture -> replay
        'capture/d.c': '#include "converters/v.h"\n',                 # capture -> converters
        'capture/net/n.h': '#include "capture/rpc/p.h"\n',            # net -> rpc
        'capture/rpc/p.h': '#include "capture/net/n.h"\n',            # rpc -> net, and a cycle
        'capture/top.c': '#include "capture/smb/s.h"\n',              # top level -> a layer
        'capture/smb/s.h': '#include "capture/capture.h"\n',
        'replay/r.h': '#include "formats/a.h"\n',
        'replay/e.c': '#include "capture/capture.h"\n',               # replay -> capture
        'replay/f.c': '#include "converters/v.h"\n',                  # replay -> converters
        'replay/g.c': '#include "cli/opts.h"\n',                      # library -> cli
        'converters/v.h': '#include "replay/r.h"\n',                  # converters -> replay
        'converters/w.c': '#include "results/t.h"\n',                 # converters -> results
        'results/t.h': '#include "formats/a.h"\n',
        'results/u.c': '#include "replay/r.h"\n',                     # results -> replay
        'cli/opts.h': '#include "capture/capture.h"\n',
        'tests/t.c': '#include "cli/opts.h"\n#include "capture/rpc/p.h"\n',  # tests -> cli (the other is fine)
        'formats/x.h': '#include "formats/y.h"\n',                    # a three-header cycle
        'formats/y.h': '#include "formats/z.h"\n',
        'formats/z.h': '#include "formats/x.h"\n',
    }
    want = [
        'formats/a.h:1: formats/ includes "capture/capture.h"',
        'formats/b.c:2: formats/ includes "replay/r.h"',
        'capture/c.c:2: capture/ includes "replay/r.h"',
        'capture/d.c:1: capture/ includes "converters/v.h"',
        'capture/net/n.h:1: capture/net includes "capture/rpc/p.h"',
        'capture/rpc/p.h:1: capture/rpc includes "capture/net/n.h"',
        'capture/top.c:1: capture/(top) includes "capture/smb/s.h"',
        'replay/e.c:1: replay/ includes "capture/capture.h"',
        'replay/f.c:1: replay/ includes "converters/v.h"',
        'replay/g.c:1: replay/ includes "cli/opts.h": nothing outside cli/',
        'converters/v.h:1: converters/ includes "replay/r.h"',
        'converters/w.c:1: converters/ includes "results/t.h"',
        'results/u.c:1: results/ includes "replay/r.h"',
        'tests/t.c:1: tests/ includes "cli/opts.h": nothing outside cli/',
        'include cycle: capture/capture.h:1 -> formats/a.h:1 -> capture/capture.h',
        'include cycle: capture/net/n.h:1 -> capture/rpc/p.h:1 -> capture/net/n.h',
        'include cycle: formats/x.h:1 -> formats/y.h:1 -> formats/z.h:1 -> formats/x.h',
    ]
    with tempfile.TemporaryDirectory() as root:
        for rel, text in planted.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), 'w') as fh:
                fh.write(text)
        got = check(root)
        bad = 0
        for w in want:
            if not any(w in g for g in got):
                print(f'not reported: {w}')
                bad = 1
        if len(got) != len(want):
            print(f'{len(got)} reports for {len(want)} planted violations:')
            print('\n'.join('  ' + g for g in got))
            bad = 1
        # The same tree with every violation taken out must pass.
        for rel in list(planted):
            os.remove(os.path.join(root, rel))
        for rel, text in {'formats/a.h': '', 'capture/capture.h': '#include "formats/a.h"\n',
                          'capture/pcap/q.c': '#include "capture/net/n.h"\n#include "capture/capture.h"\n',
                          'capture/net/n.h': '#include "capture/capture.h"\n',
                          'cli/m.c': '#include "capture/capture.h"\n#include "cli/o.h"\n#include "results/t.h"\n',
                          'cli/o.h': '', 'results/t.h': '#include "formats/a.h"\n',
                          'tests/t.c': '#include "capture/net/n.h"\n#include "h.h"\n', 'tests/h.h': ''}.items():
            os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
            with open(os.path.join(root, rel), 'w') as fh:
                fh.write(text)
        clean = check(root)
        if clean:
            print('a clean tree was reported:\n' + '\n'.join('  ' + g for g in clean))
            bad = 1
    print('self-test ' + ('FAILED' if bad else f'ok: {len(want)} planted violations reported, clean tree passes'))
    return bad


def main(argv):
    if argv[1:] == ['--self-test']:
        return self_test()
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    errors = check(argv[1])
    for e in errors:
        print(e)
    print(f'include rules: {len(errors)} violation(s)')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
