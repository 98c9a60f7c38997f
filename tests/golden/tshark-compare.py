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


# ---- NFSv4 (COMPOUND ops -> reprise ops; see docs/capture-mapping.md "## NFSv4") ----

NFS4_OPS = {
    'OPEN': 'open', 'CLOSE': 'close', 'READ': 'read', 'READ_PLUS': 'read', 'WRITE': 'write',
    'COMMIT': 'flush', 'GETATTR': 'stat', 'SETATTR': 'setattr', 'LOOKUP': 'lookup', 'LOOKUPP': 'lookup',
    'ACCESS': 'access', 'READLINK': 'readlink', 'READDIR': 'readdir', 'CREATE': 'create',
    'REMOVE': 'unlink', 'RENAME': 'rename', 'LINK': 'link', 'LOCK': 'lock', 'LOCKT': 'lock', 'LOCKU': 'unlock',
    'GETXATTR': 'getxattr', 'SETXATTR': 'setxattr', 'LISTXATTRS': 'listxattr', 'REMOVEXATTR': 'removexattr',
}
# reprise splits what tshark's op names cannot: compare them merged.
NFS4_MERGE = {'statfs': 'stat', 'rmdir': 'unlink', 'mkdir': 'create', 'symlink': 'create', 'mknod': 'create'}


def nfs4_row(row, state):
    """A list of (reprise op, file names) for the COMPOUND a tshark row completes, or False if not NFSv4.

    tshark lists one row per op.  reprise folds a GETATTR or ACCESS into the
    compound's main op (the first other file op; else the first ACCESS), and
    emits no op for ops the server never ran (after the first failing op, i.e.
    ops with no reply row).  Calls are collected per xid and counted when the
    reply's rows arrive (or at the end for unanswered calls)."""
    if not row['proto'].startswith('NFSv4') or row['op'] == 'NULL':
        return False
    key = row['id']
    comp = state.setdefault('nfs4', {}).setdefault(key, {'call': [], 'reply': 0})
    if row['dir'] == 'call':
        comp['call'].append(row)
    else:
        comp['reply'] += 1
    return []


def nfs4_flush(state):
    out = []
    for comp in state.get('nfs4', {}).values():
        ops = comp['call']
        ran = ops[:comp['reply']] if comp['reply'] else ops
        names = [r['op'] for r in ops]
        main = next((i for i, n in enumerate(names) if n in NFS4_OPS and n not in ('GETATTR', 'ACCESS')), None)
        if main is None:
            main = next((i for i, n in enumerate(names) if n == 'ACCESS'), None)
        for i, r in enumerate(ran):
            op = NFS4_OPS.get(r['op'])
            if not op or (r['op'] in ('GETATTR', 'ACCESS') and main is not None and main != i):
                continue
            out.append((op, [n for n in r['name'].split(' -> ') if n] if r['name'] else []))
    return out


# ---- SMB2/3 (MS-SMB2 commands -> reprise ops; see docs/capture-mapping.md "## SMB2/3") ----

SMB2_OPS = {
    'CREATE': 'open', 'CLOSE': 'close', 'READ': 'read', 'WRITE': 'write', 'FLUSH': 'flush',
    'LOCK': 'lock', 'QUERY_DIRECTORY': 'readdir',
}
# reprise splits what tshark's columns cannot tell apart: compare them merged.
SMB2_MERGE = {'rmdir': 'unlink', 'unlock': 'lock'}


def smb2_detail(row):
    return dict(kv.split('=', 1) for kv in row.get('detail', '').split(',') if '=' in kv)


def smb2_row(row, state):
    """Collect SMB2 rows; smb2_flush maps the requests.

    reprise makes no op for requests on an IPC$ tree (named pipes: DCE/RPC), so
    the tree ids of IPC$ TREE_CONNECT responses are remembered and their
    requests left out."""
    if row['proto'] != 'SMB2':
        return False
    state.setdefault('smb2', []).append(row)
    return []


def smb2_flush(state):
    rows = state.get('smb2', [])
    pipes = set()
    for r in rows:
        if r['op'] == 'TREE_CONNECT' and r['dir'] == 'resp' and r['name'].upper().endswith('\\IPC$'):
            pipes.add(smb2_detail(r).get('tid'))
    out = []
    for r in rows:
        if r['dir'] != 'req':
            continue
        d = smb2_detail(r)
        if d.get('tid') in pipes:
            continue
        op = SMB2_OPS.get(r['op'])
        if r['op'] == 'QUERY_INFO':
            op = {'0x01': 'stat', '0x02': 'statfs', '0x03': 'getxattr'}.get(d.get('class'))
        elif r['op'] == 'SET_INFO':
            level = d.get('infolevel')
            if d.get('class') == '0x03':
                op = 'setxattr'
            elif d.get('class') != '0x01':
                op = None
            else:
                # FileDisposition(Ex)Information sets or clears delete-on-close: a setattr on the handle
                op = {'0x0a': 'rename', '0x41': 'rename'}.get(level, 'setattr')
        name = r['name'].replace(' (related)', '')
        names = [] if not op or name.startswith('\\\\') else [n for n in re.split(r'[\\/]| -> ', name) if n]
        out.append((op, names))
    return out


PROTOCOLS = {'NFSv3': nfs3_row, 'NFSv4': nfs4_row, 'SMB2': smb2_row}
FLUSH = {'NFSv4': nfs4_flush, 'SMB2': smb2_flush}
MERGE = {'NFSv4': NFS4_MERGE, 'SMB2': SMB2_MERGE}


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
    flush = FLUSH.get(args.proto)
    if flush:
        state = {}
    for row in read_tsv(capture + '.ops.tsv'):
        if row.get('dir') != 'call' and not flush:
            continue
        r = mapper(row, state)
        if r is False:
            continue
        for op, names in (r if isinstance(r, list) else [r]):
            if op:
                want[op] += 1
            tshark_names.update(names)
    for op, names in flush(state) if flush else []:
        if op:
            want[op] += 1
        tshark_names.update(names)

    got, reprise_names = read_reprise(reprise_lines(capture, args))
    for a, b in MERGE.get(args.proto, {}).items():
        got[b] += got.pop(a, 0)
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
