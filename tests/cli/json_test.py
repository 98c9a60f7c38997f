#!/usr/bin/env python3
"""replay --json and stat --json (TAP): valid UTF-8 with hostile names, every documented key and no
undocumented one (docs/replay.md, docs/stat-json.md), the trace's SHA-256, ordered percentiles,
histograms that merge back into the counts they came from, provenance that matches the machine.

    json_test.py REPRISE SOURCE_ROOT MK_HOSTILE_NAMES
"""
import datetime
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile

reprise, src, mkhostile = sys.argv[1:4]
n = 0
fails = 0


def tap(cond, desc, why=''):
    global n, fails
    n += 1
    if cond:
        print(f'ok {n} - {desc}')
    else:
        fails += 1
        print(f'not ok {n} - {desc}')
        for line in str(why).splitlines()[:20]:
            print(f'# {line}')


def run(args, **kw):
    return subprocess.run([reprise] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **kw)


def load_strict(raw):
    """The JSON from bytes that must be UTF-8 (no replacement, no surrogate escapes)."""
    return json.loads(raw.decode('utf-8', errors='strict'))


def replay(tmp, name, trace, *extra):
    target = os.path.join(tmp, 'target-' + name)
    os.mkdir(target)
    out = os.path.join(tmp, name + '.json')
    args = ['replay', trace, '--target', target, '-q', '--json', out] + list(extra)
    p = run(args)
    with open(out, 'rb') as f:
        raw = f.read()
    return args, raw, target, p


LAT_KEYS = None
HIST_KEYS = None


def doc_keys():
    """The key paths in the first column of docs/replay.md's JSON table, and the object shapes."""
    global LAT_KEYS, HIST_KEYS
    text = open(os.path.join(src, 'docs', 'replay.md'), encoding='utf-8').read()
    sec = text[text.index('## JSON'):]
    sec = sec[:sec.index('\n## ', 5)]
    lat = re.search(r'\*\*Latency objects\*\*.*?are `\{(.*?)\}`', sec, re.S).group(1)
    LAT_KEYS = set(re.findall(r'"([a-z0-9_]+)"', lat))
    hist = re.search(r'\*\*Histograms\*\*.*?`\{(.*?)\}`', sec, re.S).group(1)
    HIST_KEYS = set(re.findall(r'"([a-z0-9_]+)"', hist))
    keys = set()
    for line in sec.splitlines():
        if line.startswith('| `'):
            keys.update(re.findall(r'`([^`]+)`', line.split('|')[1]))
    return keys


def paths(d, prefix=''):
    """Every key path of d, with op names as OP, errno names as ERRNO and array elements as []."""
    out = set()
    if isinstance(d, dict):
        for k, v in d.items():
            if prefix in ('ops', 'op_counts'):
                k = 'OP'
            elif prefix == 'errors':
                k = 'ERRNO'
            p = prefix + '.' + k if prefix else k
            out.add(p)
            # Latency objects and histograms have the shapes the doc's paragraphs give (checked apart).
            if k not in ('latency_us', 'histogram'):
                out |= paths(v, p)
    elif isinstance(d, list):
        for v in d:
            if isinstance(v, dict):
                out |= paths(v, prefix + '[]')
    return out


def objects(d, key):
    """Every value under key, anywhere in d."""
    if isinstance(d, dict):
        for k, v in d.items():
            if k == key:
                yield v
            yield from objects(v, key)
    elif isinstance(d, list):
        for v in d:
            yield from objects(v, key)


# The documented layout (docs/replay.md, "Histograms"), recomputed here from the text's formula.
def bucket_width(lo, layout):
    s, m = layout['sub_bits'], layout['max_bits']
    if lo < (1 << s):
        return 1
    if lo >= (1 << m) - (1 << (m - 1 - s)):
        return None  # the last bucket: open above
    return 1 << (lo.bit_length() - 1 - s)


def quantile(h, q, layout):
    rank = max(1, -(-int(q * h['count'] * 10**9) // 10**9))  # ceil(q * count), without float surprises
    seen = 0
    for lo, c in h['buckets']:
        seen += c
        if seen >= rank:
            w = bucket_width(lo, layout)
            v = h['max_ns'] if w is None else lo + (w - 1) // 2
            return min(max(v, h['min_ns']), h['max_ns'])
    return h['max_ns']


def merge(hists):
    m = {'count': 0, 'sum_ns': 0, 'min_ns': None, 'max_ns': 0, 'buckets': {}}
    for h in hists:
        if not h:
            continue
        m['count'] += h['count']
        m['sum_ns'] += h['sum_ns']
        m['min_ns'] = h['min_ns'] if m['min_ns'] is None else min(m['min_ns'], h['min_ns'])
        m['max_ns'] = max(m['max_ns'], h['max_ns'])
        for lo, c in h['buckets']:
            m['buckets'][lo] = m['buckets'].get(lo, 0) + c
    m['buckets'] = sorted(m['buckets'].items())
    return m


def main():
    tmp = tempfile.mkdtemp()
    try:
        checks(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f'1..{n}')
    return 1 if fails else 0


def checks(tmp):
    small = os.path.join(src, 'tests', 'data', 'replay', 'small.load')
    trace = os.path.join(tmp, 'small.rpz')
    p = run(['convert', '-q', small, trace])
    tap(p.returncode == 0, 'convert the small loadfile', p.stderr.decode(errors='replace'))

    # 1. A small loadfile, twice, with three clients: valid JSON, provenance, numbers that hold together.
    args, raw1, target, p = replay(tmp, 'r1', trace, '--clients', '3')
    tap(p.returncode == 0, 'replay the small trace --json', p.stderr.decode(errors='replace'))
    try:
        d1 = load_strict(raw1)
        tap(True, 'the JSON parses as UTF-8')
    except ValueError as e:
        tap(False, 'the JSON parses as UTF-8', e)
        return
    _, raw2, _, _ = replay(tmp, 'r2', trace, '--clients', '3')
    d2 = load_strict(raw2)
    tap(d1['schema'] == 'reprise-replay' and d1['schema_version'] == 2, 'schema reprise-replay, version 2')

    pv = d1['provenance']
    want = hashlib.sha256(open(trace, 'rb').read()).hexdigest()
    sha = subprocess.run(['sha256sum', trace], stdout=subprocess.PIPE).stdout.split()[0].decode()
    tap(pv['trace']['sha256'] == sha == want, "the trace's SHA-256 is sha256sum's", f"{pv['trace']['sha256']} {sha}")
    tap(pv['trace']['path'] == trace and isinstance(pv['trace']['hash_seconds'], float), 'the trace path and hash time')
    os.mkdir(os.path.join(tmp, 'target-pipe'))
    with open(trace, 'rb') as f:
        p = subprocess.run([reprise, 'replay', '-', '--target', os.path.join(tmp, 'target-pipe'), '-b', 'null', '-q',
                            '--json', '-'], stdin=f, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        dp = load_strict(p.stdout)['provenance']['trace']
    except (ValueError, KeyError) as e:
        dp = {'error': str(e), 'stderr': p.stderr.decode(errors='replace')}
    tap(dp.get('path') == '<stdin>' and dp.get('sha256') == sha, "a trace through a pipe: the SHA-256 of its bytes", dp)
    tap(pv['command_line'][1:] == args, 'the command line as given', pv['command_line'])
    tap(pv['host'] == socket.gethostname() and os.uname().release in pv['kernel'], 'host and kernel release')
    t = datetime.datetime.strptime(pv['start_time'][:19], '%Y-%m-%dT%H:%M:%S').replace(tzinfo=datetime.timezone.utc)
    tap(pv['start_time'].endswith('Z') and int(t.timestamp()) == pv['start_epoch_ns'] // 10**9,
        'start time: ISO 8601 UTC and epoch ns agree', (pv['start_time'], pv['start_epoch_ns']))
    tg = pv['target']
    real = os.path.realpath(target)
    tap(tg['path'] == target and tg['fs_type'] and re.fullmatch(r'0x[0-9a-f]+', tg['fs_magic'] or '')
        and (tg['mount_point'] == '/' or real == tg['mount_point'] or real.startswith(tg['mount_point'] + '/'))
        and 'r' in (tg['mount_options'] or ''), 'the target: fs type, magic, its mount and options', tg)
    magic = subprocess.run(['stat', '-f', '-c', '%t', target], stdout=subprocess.PIPE).stdout.decode().strip()
    tap(int(tg['fs_magic'], 16) == int(magic, 16), "fs_magic is statfs's f_type (stat -f)", (tg['fs_magic'], magic))
    feats = dict(f.split('=', 1) for f in pv['build_features'])
    ver = run(['--version']).stdout.decode()
    tap({'libpcap', 'jansson', 'nettle', 'buildtype', 'backends'} <= set(feats)
        and 'features: ' + ' '.join(pv['build_features']) + '\n' in ver, 'build features from meson, as --version',
        (pv['build_features'], ver))
    tap(all(isinstance(d1['cpu'][k], float) and d1['cpu'][k] >= 0 for k in ('user_s', 'sys_s')), 'CPU time user and sys')

    # 2. Percentiles are ordered in every latency object (top level, per op, per client).
    order = ['min', 'p50', 'p90', 'p95', 'p99', 'p999', 'p9999', 'max']
    lats = list(objects(d1, 'latency_us'))
    bad = [l for l in lats if l['count'] and not (all(l[a] <= l[b] for a, b in zip(order, order[1:]))
                                                  and l['min'] <= l['mean'] <= l['max'] and l['stddev'] >= 0)]
    tap(len(lats) > 3 and not bad, f'percentiles ordered in {len(lats)} latency objects', bad[:2])

    # 3. Histograms: their counts, the documented layout, and merges.
    layout = d1['histogram_layout']
    ok = True
    why = ''
    for name, o in d1['ops'].items():
        h = o['histogram']
        if not h:
            continue
        lat = o['latency_us']
        if sum(c for _, c in h['buckets']) != h['count'] or h['count'] != lat['count']:
            ok, why = False, f'{name}: bucket counts {h}'
        los = [lo for lo, _ in h['buckets']]
        if los != sorted(set(los)):
            ok, why = False, f'{name}: buckets not in order'
        for q, k in ((0.5, 'p50'), (0.99, 'p99'), (0.999, 'p999')):
            if abs(quantile(h, q, layout) / 1e3 - lat[k]) > 1e-6 * max(1, lat[k]):
                ok, why = False, f'{name}: {k} {lat[k]} from the buckets {quantile(h, q, layout)} ns'
        if abs(h['sum_ns'] / h['count'] / 1e3 - lat['mean']) > 1e-6 * max(1, lat['mean']):
            ok, why = False, f'{name}: mean'
    tap(ok, "each op's histogram holds its count, and the documented layout gives its percentiles", why)
    ops_merged = merge(o['histogram'] for k, o in d1['ops'].items() if k != 'sleep')
    top = d1['histogram']
    tap(ops_merged['buckets'] == [tuple(b) for b in top['buckets']] and ops_merged['count'] == top['count']
        and ops_merged['sum_ns'] == top['sum_ns'] and ops_merged['min_ns'] == top['min_ns']
        and ops_merged['max_ns'] == top['max_ns'], "the per-op histograms merge into the run's histogram exactly")
    both = merge([d1['histogram'], d2['histogram']])
    tap(both['count'] == d1['latency_us']['count'] + d2['latency_us']['count']
        and sum(c for _, c in both['buckets']) == both['count']
        and all(dict(both['buckets']).get(lo, 0) >= c for lo, c in d1['histogram']['buckets']),
        "two runs' histograms merge: the counts add up", (both['count'], d1['latency_us']['count']))
    per_op = all(merge([d1['ops'][k]['histogram'], d2['ops'][k]['histogram']])['count']
                 == d1['ops'][k]['latency_us']['count'] + d2['ops'][k]['latency_us']['count']
                 for k in d1['ops'] if d1['ops'][k]['histogram'])
    tap(per_op, "and op by op")
    lo_m, hi_m = min(quantile(d1['histogram'], 0.5, layout), quantile(d2['histogram'], 0.5, layout)), \
        max(quantile(d1['histogram'], 0.5, layout), quantile(d2['histogram'], 0.5, layout))
    tap(lo_m <= quantile(both, 0.5, layout) <= hi_m, "the merge's median lies between the runs' medians")

    # 4. Per client and per second.
    cr = d1['client_results']
    tap(len(cr) == d1['clients'] == 3 and sum(c['ops'] for c in cr) == d1['total_ops']
        and [c['clone'] for c in cr] == [0, 1, 2] and [c['dir'] for c in cr] == ['client1', 'client2', 'client3'],
        'per-client results: one per client, their ops add up', cr[:1])
    tap(sum(c['latency_us']['count'] for c in cr) == d1['latency_us']['count'], 'per-client latencies add up')
    tap(sum(s['lat_count'] for s in d1['series']) == d1['latency_us']['count']
        and all(s['lat_max_us'] >= s['lat_avg_us'] >= 0 for s in d1['series']),
        'latency per second: the series holds every latency', d1['series'][:2])

    # 5. Hostile names: control bytes, ESC, a C1 CSI byte, a valid UTF-8 name with a stray byte.
    evil = os.path.join(tmp, 'evil.rpz')
    subprocess.run([mkhostile, evil], check=True)
    p = run(['replay', evil, '--target', os.path.join(tmp, 'target-r1'), '-b', 'null', '-q', '--json', '-'])
    raw3 = p.stdout
    try:
        d3 = load_strict(raw3)
        tap(True, 'a trace with control bytes in names: the JSON parses as UTF-8')
    except ValueError as e:
        d3 = {}
        tap(False, 'a trace with control bytes in names: the JSON parses as UTF-8', e)
    tap(not re.search(rb'[\x00-\x09\x0b-\x1f\x7f]', raw3) and b'\xc2\x9b' not in raw3,
        'no control byte in the JSON text')
    tap(d3.get('mismatch_samples', [{}])[0].get('path') == 'dir/\\x1b[2J\\x0aevil\\x9b',
        'the path escaped as the text form escapes it', d3.get('mismatch_samples'))
    lf = os.path.join(tmp, 'utf8.txt')
    with open(lf, 'wb') as f:
        f.write(b'Unlink "\\caf\xc3\xa9\xff" 0x6 NT_STATUS_OK\nRmdir "\\ab\xc2\x85" NT_STATUS_OK\n'
                b'Unlink "\\plain" 0x6 NT_STATUS_OK\n')
    _, raw4, _, p = replay(tmp, 'utf8', lf, '--no-prepare')
    d4 = load_strict(raw4)
    got = [s['path'] for s in d4['mismatch_samples']]
    tap(got[:1] == ['café\\xff'], 'valid UTF-8 stays, a stray byte is \\xNN', got)
    tap(len(got) == 2 and got[1] == 'ab\\xc2\\x85', 'a C1 control in UTF-8 is escaped byte by byte', got)
    tap([s['count'] for s in d4['mismatch_samples']] == [2, 1] and d4['mismatch_other_kinds'] == 0,
        'mismatches grouped by kind, with counts', d4['mismatch_samples'])
    p = run(['stat', '--json', evil])
    try:
        s3 = load_strict(p.stdout)
        tap(s3['input'] == 'in\\x1b[2J\\x0aput' and s3['host'] == 'h\\x1b[2J\\x0aost',
            'stat --json: input and host escaped, valid UTF-8', s3)
    except (ValueError, KeyError) as e:
        s3 = {}
        tap(False, 'stat --json: input and host escaped, valid UTF-8', e)

    # 6. The documented keys, both ways, over the three runs.
    keys = doc_keys()
    seen = paths(d1) | paths(d3) | paths(d4)
    tap(not keys - seen, 'every key docs/replay.md lists is in the JSON', sorted(keys - seen))
    tap(not seen - keys, 'every key of the JSON is in docs/replay.md', sorted(seen - keys))
    shapes = [set(l) for d in (d1, d3, d4) for l in objects(d, 'latency_us')]
    tap(shapes and all(s == LAT_KEYS for s in shapes), 'latency objects have the documented keys', LAT_KEYS)
    hs = [set(h) for d in (d1, d4) for h in objects(d, 'histogram') if h]
    tap(hs and all(s == HIST_KEYS for s in hs), 'histograms have the documented keys', HIST_KEYS)

    doc = open(os.path.join(src, 'docs', 'stat-json.md'), encoding='utf-8').read()
    block = doc[doc.index('```json'):doc.index('```', doc.index('```json') + 7)]
    documented = set(re.findall(r'^\s*"([a-z_]+)":', block, re.M))
    p = run(['stat', '--json', trace])
    s1 = load_strict(p.stdout)
    tap(set(s1) == documented, 'stat --json has exactly the keys docs/stat-json.md shows',
        sorted(set(s1) ^ documented))

    # 7. stat --diff --json: the keys of its block (the document's second), both ways; a and b as above.
    start = doc.index('```json', doc.index('## `reprise stat --diff'))
    block = doc[start:doc.index('```', start + 7)]
    dkeys = set(re.findall(r'^\s*"([a-z_]+)":', block, re.M))
    pairs = set(re.findall(r'"([a-z]+)"', re.search(r'is a `\{(.*?)\}`', doc).group(1)))
    oc_line = next(l for l in block.splitlines() if l.strip().startswith('"op_counts"'))
    oc_keys = set(re.findall(r'"([a-z_]+)":', oc_line.split(': {', 2)[2]))
    p = run(['stat', '--diff', '--json', trace, evil])
    dd = load_strict(p.stdout)
    seen = set(dd) | set(dd['diff'])
    tap(p.returncode == 0 and seen == dkeys, 'stat --diff --json has exactly the keys docs/stat-json.md shows',
        sorted(seen ^ dkeys))
    tap(set(dd['a']) == documented and set(dd['b']) == documented, 'its a and b have the keys of stat --json',
        sorted(set(dd['a']) ^ documented))
    objs = list(dd['diff']['totals'].values()) + list(dd['diff']['inter_arrival_ms'].values())
    tap(objs and all(set(o) == pairs for o in objs), 'its differences have the documented keys', pairs)
    tap(dd['diff']['op_counts'] and all(set(o) == oc_keys for o in dd['diff']['op_counts'].values()),
        'its op_counts entries have the documented keys', oc_keys)
    cl_line = next(l for l in block.splitlines() if l.strip().startswith('"closed_loop"'))
    cl = cl_line.split(':', 1)[1].strip().rstrip(',')
    depth, cl_keys = 0, set()
    for m in re.finditer(r'[{}]|"([a-z_]+)":', cl):
        if m.group(0) == '{':
            depth += 1
        elif m.group(0) == '}':
            depth -= 1
        elif depth == 1:
            cl_keys.add(m.group(1))
    loop = dd['diff']['closed_loop']
    tap(isinstance(loop, dict) and set(loop) == cl_keys, 'its closed_loop has the documented keys',
        sorted(set(loop or {}) ^ cl_keys))
    core = (loop or {}).get('core', {})
    tap(core and all(set(c) == pairs | {'ratio', 'differs'} for c in core.values()),
        'its core entries are pairs with a ratio and a verdict', sorted(core))


sys.exit(main())
