#!/usr/bin/env python3
"""A public face per library (issue 23 point 8), checked over every #include of every .c and .h.

Each library names the headers other libraries may include (PUBLIC); the rest of its headers
are internal: only the library itself includes them (and tests/ and bench/, which test the
internals).  include_rules.py says which library may include which; this says through which
headers.  formats/ is the op model every library is built on: each of its modules' headers is
its API, so it names its internals instead (FORMATS_INTERNAL, and any *_int.h or *_internal.h).

A cross-library include of an internal header that cannot go yet is in EXCEPTIONS with the
reason; the goal is none, and an exception that no longer occurs is reported (so it goes).

    public_headers.py ROOT         check the tree at ROOT; each violation as FILE:LINE: why
    public_headers.py --self-test  plant each kind of violation in a scratch tree and check that
                                   every one is reported, and that a clean tree passes
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import include_rules  # noqa: E402  (sources(), includes(): the same walk as the include rule)

# What other libraries may include of each library (paths from the root).
PUBLIC = {
    # the packet capture (rp_capture_*, rp_smb_keys), the syscall capture of a program
    # (rp_capture_cmd), what running a program under the LTTng-UST twin needs, and nfsdump text input
    'capture': {'capture/capture.h', 'capture/session.h', 'capture/lttng/lttng.h', 'capture/nfsdump.h'},
    # a run (rp_replay_*), the versioned backend contract that backend modules build against,
    # --clients-from's merge, replay --mpi's run protocol and bench --mkfs's targets
    'replay': {'replay/replay.h', 'replay/backend.h', 'replay/merge.h', 'replay/mpi_run.h',
               'replay/bench_mkfs.h'},
    # the registry of producers and consumers, any input pumped into a sink through it, and the
    # converters cli/ drives by name: anonymize, the slice filter, merge, --scale-space, the loadfile preamble,
    # strace and CTF options, CSV traces (--csv)
    'converters': {'converters/registry.h', 'converters/pump.h', 'converters/anonymize.h', 'converters/filter.h',
                   'converters/merge.h', 'converters/scale.h', 'converters/preamble.h', 'converters/strace.h',
                   'converters/ctf.h', 'converters/csv.h'},
    # compare's table, bench's report, stat's sink, JSON and --diff, provenance
    'results': {'results/benchtab.h', 'results/bench.h', 'results/stat_json.h',
                'results/stat_diff.h', 'results/stat_sink.h', 'results/runenv.h', 'results/model.h',
                'results/model_check.h'},
}
# formats/'s internals, besides any *_int.h and *_internal.h.
FORMATS_INTERNAL = {'formats/loadfile_cmds.h', 'formats/loadfile_rd.h'}
# (includer, header) -> why it still includes an internal header of another library.
EXCEPTIONS = {}
# Who is exempt: tests/ and bench/ test and measure the internals; cli/ is included by no one.
EXEMPT = {'tests', 'bench'}


def is_public(header):
    lib = header.split('/')[0]
    if lib == 'formats':
        base = os.path.basename(header)
        return not (header in FORMATS_INTERNAL or base.endswith(('_int.h', '_internal.h')))
    return header in PUBLIC.get(lib, set())


def check(root):
    errors, seen = [], set()
    for lib, hs in sorted(PUBLIC.items()):
        for h in sorted(hs):
            if not os.path.isfile(os.path.join(root, h)):
                errors.append(f'{h}: in PUBLIC of {lib}/ but no such header')
    for rel in include_rules.sources(root):
        lib = rel.split('/')[0]
        if lib in EXEMPT:
            continue
        for n, name, target in include_rules.includes(root, rel):
            if target is None or not target.endswith('.h'):
                continue
            tlib = target.split('/')[0]
            if tlib == lib or tlib not in include_rules.LIBS or tlib == 'cli':
                continue  # its own headers; system headers; cli/ is include_rules.py's
            if is_public(target):
                continue
            if (rel, target) in EXCEPTIONS:
                seen.add((rel, target))
                continue
            public = sorted(PUBLIC.get(tlib, set())) if tlib != 'formats' else ['formats/*.h but its internals']
            errors.append(f'{rel}:{n}: {lib}/ includes "{name}", internal to {tlib}/: other libraries '
                          f'include only {", ".join(public)}')
    for (rel, target), why in sorted(EXCEPTIONS.items()):
        if (rel, target) not in seen:
            errors.append(f'{rel}: EXCEPTIONS lists its include of {target}, which is gone: remove the entry')
    return errors


def self_test():
    global EXCEPTIONS
    planted = {
        'formats/op.h': '',
        'formats/plan_int.h': '',
        'formats/loadfile_cmds.h': '',
        'capture/capture.h': '#include "formats/op.h"\n',
        'capture/session.h': '',
        'capture/lttng/lttng.h': '',
        'capture/nfsdump.h': '',
        'capture/decode.h': '#include "formats/plan_int.h"\n',        # formats' *_int.h
        'capture/preload/spool.h': '',
        'replay/replay.h': '',
        'replay/backend.h': '',
        'replay/merge.h': '',
        'replay/mpi_run.h': '',
        'replay/bench_mkfs.h': '',
        'replay/engine.h': '#include "formats/loadfile_cmds.h"\n',    # formats' named internal
        'converters/registry.h': '', 'converters/pump.h': '', 'converters/anonymize.h': '', 'converters/filter.h': '',
        'converters/merge.h': '', 'converters/scale.h': '', 'converters/preamble.h': '', 'converters/strace.h': '',
        'converters/ctf.h': '', 'converters/csv.h': '',
        'converters/strace_int.h': '',
        'results/benchtab.h': '', 'results/bench.h': '', 'results/stat_json.h': '',
        'results/stat_diff.h': '', 'results/stat_sink.h': '', 'results/runenv.h': '', 'results/model.h': '',
        'results/model_check.h': '',
        'results/benchtab_int.h': '',
        'cli/cmd_capture.c': '#include "capture/session.h"\n#include "capture/preload/spool.h"\n',
        'cli/cmd_replay.c': '#include "replay/replay.h"\n#include "replay/engine.h"\n',
        'cli/cmd_convert.c': '#include "converters/registry.h"\n#include "converters/strace_int.h"\n',
        'cli/cmd_compare.c': '#include "results/benchtab.h"\n#include "results/benchtab_int.h"\n',
        'cli/excused.c': '#include "replay/engine.h"\n',               # excused by EXCEPTIONS
        'tests/t.c': '#include "replay/engine.h"\n#include "capture/decode.h"\n',  # tests: exempt
    }
    want = [
        'capture/decode.h:1: capture/ includes "formats/plan_int.h", internal to formats/',
        'replay/engine.h:1: replay/ includes "formats/loadfile_cmds.h", internal to formats/',
        'cli/cmd_capture.c:2: cli/ includes "capture/preload/spool.h", internal to capture/',
        'cli/cmd_replay.c:2: cli/ includes "replay/engine.h", internal to replay/',
        'cli/cmd_convert.c:2: cli/ includes "converters/strace_int.h", internal to converters/',
        'cli/cmd_compare.c:2: cli/ includes "results/benchtab_int.h", internal to results/',
        'cli/gone.c: EXCEPTIONS lists its include of replay/req.h, which is gone',
        'replay/mpi_run.h: in PUBLIC of replay/ but no such header',
    ]
    saved = EXCEPTIONS
    EXCEPTIONS = {('cli/excused.c', 'replay/engine.h'): 'planted', ('cli/gone.c', 'replay/req.h'): 'planted'}
    bad = 0
    try:
        with tempfile.TemporaryDirectory() as root:
            for rel, text in planted.items():
                if rel == 'replay/mpi_run.h':
                    continue  # named in PUBLIC, missing from the tree
                os.makedirs(os.path.join(root, os.path.dirname(rel)), exist_ok=True)
                with open(os.path.join(root, rel), 'w') as fh:
                    fh.write(text)
            got = check(root)
            for w in want:
                if not any(w in g for g in got):
                    print(f'not reported: {w}')
                    bad = 1
            if len(got) != len(want):
                print(f'{len(got)} reports for {len(want)} planted violations:')
                print('\n'.join('  ' + g for g in got))
                bad = 1
            # The violations taken out: the tree must pass.
            EXCEPTIONS = {('cli/excused.c', 'replay/engine.h'): 'planted'}
            with open(os.path.join(root, 'replay/mpi_run.h'), 'w'):
                pass
            for rel in ('capture/decode.h', 'replay/engine.h'):
                with open(os.path.join(root, rel), 'w') as fh:
                    fh.write('#include "formats/op.h"\n')
            for rel in ('cli/cmd_capture.c', 'cli/cmd_replay.c', 'cli/cmd_convert.c', 'cli/cmd_compare.c'):
                with open(os.path.join(root, rel)) as fh:
                    first = fh.readline()
                with open(os.path.join(root, rel), 'w') as fh:
                    fh.write(first)
            clean = check(root)
            if clean:
                print('a clean tree was reported:\n' + '\n'.join('  ' + g for g in clean))
                bad = 1
    finally:
        EXCEPTIONS = saved
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
    print(f'public headers: {len(errors)} violation(s)')
    return 1 if errors else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
