#!/usr/bin/env python3
"""Side-by-side op counts of tshark's reference decode and reprise's for one capture.

usage: tshark-compare.py CAPTURE [--expected FILE | --reprise BIN] [--proto NAME]

CAPTURE is a file under tests/data/pcap/ (or a path); its tshark decode is
CAPTURE.ops.tsv beside it.  reprise's side is a golden expected file
(`reprise cat` output plus the conversion summary) or, with --reprise, a fresh
`reprise convert` + `reprise cat`.  Each protocol maps tshark's procedure names
to reprise op names in its own function below; only calls are counted, since a
reprise op is one call with its reply.  The script also lists file names tshark
saw that appear in no reprise path.  Exit status 0 when the counts agree.
"""
import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
PCAPS = os.path.join(HERE, '..', 'data', 'pcap')


# ---- NFSv3 (RFC 1813 procedures -> reprise ops; see docs/capture-mapping.md "## NFSv3") ----

NFS3_OPS = {
    'GETATTR': 'stat', 'SETATTR': 'setattr', 'LOOKUP': 'lookup', 'ACCESS': 'access',
    'READLINK': 'readlink', 'READ': 'read', 'WRITE': 'write', 'CREATE': 'open', 'MKDIR': 'mkdir',
    'SYMLINK': 'symlink', 'MKNOD': 'mknod', 'REMOVE': 'unlink', 'RMDIR': 'rmdir', 'RENAME': 'rename',
    'LINK': 'link', 'READDIR': 'readdir', 'READDIRPLUS': 'readdir', 'FSSTAT': 'statfs',
    'FSINFO': 'statfs', 'PATHCONF': 'statfs', 'COMMIT': 'flush',
    'NULL': None,  # a ping: counted as ignored, no op
}


def nfs3_row(row, exports):
    """(reprise op or None, file names) for one tshark call row of NFSv3, or False if not NFSv3.

    tshark names an export root "host:/dirpath"; reprise calls it "/" (paths are
    relative to the export), so names of export roots are left out."""
    if row['op'] == 'MOUNT3.MNT' and row['name']:
        exports.add(row['name'])
    if row['proto'] != 'NFSv3':
        return False
    if row['name'].split(':', 1)[-1] in exports:
        return NFS3_OPS.get(row['op'], '?' + row['op']), []
    op = NFS3_OPS.get(row['op'], '?' + row['op'])
    names = []
    name = row['name']
    if name:
        # "a [at=host:/export/dir]", "host:/export/dir/a", RENAME/LINK/SYMLINK "a -> b"
        for part in name.split(' [at=')[0].split(' -> '):
            names.append(part.strip().rsplit('/', 1)[-1].split(':')[-1])
    return op, [n for n in names if n and n not in ('.', '..')]


PROTOCOLS = {'NFSv3': nfs3_row}


# ---- reading both sides ----

def read_tsv(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        header = f.readline().rstrip('\n').split('\t')
        for line in f:
            yield dict(zip(header, line.rstrip('\n').split('\t')))


OP_LINE = re.compile(r'^\S+ \S+ c\d+ (\w+)(.*)$')
PATH = re.compile(r'path2?="((?:[^"\\]|\\.)*)"')


def read_reprise(lines):
    counts = collections.Counter()
    names = set()
    for line in lines:
        m = OP_LINE.match(line)
        if not m:
            continue
        counts[m.group(1)] += 1
        for p in PATH.findall(m.group(2)):
            names.update(p.split('/'))
    return counts, names


def reprise_lines(capture, args):
    if args.expected:
        with open(args.expected, encoding='utf-8', errors='replace') as f:
            return f.read().splitlines()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, 'x.rpz')
        subprocess.run([args.reprise, 'convert', capture, out], check=False, capture_output=True)
        cat = subprocess.run([args.reprise, 'cat', out], check=False, capture_output=True, text=True)
        return cat.stdout.splitlines()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('capture')
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument('--expected', help='golden expected file (reprise cat output)')
    g.add_argument('--reprise', help='reprise binary to run convert + cat')
    ap.add_argument('--proto', default='NFSv3', choices=sorted(PROTOCOLS))
    args = ap.parse_args()
    capture = args.capture if os.path.exists(args.capture) else os.path.join(PCAPS, args.capture)
    mapper = PROTOCOLS[args.proto]
    state = set()

    want = collections.Counter()
    tshark_names = set()
    for row in read_tsv(capture + '.ops.tsv'):
        if row.get('dir') != 'call':
            continue
        r = mapper(row, state)
        if r is False:
            continue
        op, names = r
        if op:
            want[op] += 1
        tshark_names.update(names)

    got, reprise_names = read_reprise(reprise_lines(capture, args))
    ops = sorted(set(want) | set(got))
    print('%-10s %8s %8s' % ('op', 'tshark', 'reprise'))
    same = True
    for op in ops:
        mark = '' if want[op] == got[op] else '   <-- differs'
        same = same and not mark
        print('%-10s %8d %8d%s' % (op, want[op], got[op], mark))
    print('%-10s %8d %8d' % ('total', sum(want.values()), sum(got.values())))
    missing = sorted(n for n in tshark_names if n not in reprise_names)
    if missing:
        same = False
        print('names tshark saw that no reprise path holds: ' + ', '.join(missing))
    else:
        print('every file name tshark saw is in a reprise path (%d names)' % len(tshark_names))
    return 0 if same else 1


if __name__ == '__main__':
    sys.exit(main())
