#!/usr/bin/env python3
"""The HTML report of `reprise compare` in headless Chromium (TAP, suite html).

Real inputs: the bundled SMB sample replayed twice on one directory (posix: two runs of a target)
and once with the null backend, plus a bench-format file whose target is named with <, & and
quotes.  The page must load with no console error, make a non-blank screenshot, and its SVG must
hold the expected series: one throughput line per target, one CDF curve per op type per target
(every op with a histogram), "where the time went" bars for each file-system op, a spread row per
target.  Issue 25's items: the provenance header, short labels with the path in a tooltip, no star
on rows equal for every target, no ratio against a best of about 0, inputs of two traces refused;
and fixed-work runs: charts by trace progress, time-to-complete bars, a log scale for an outlier.

  compare_html.py REPRISE SOURCE_ROOT      (exit 77 when chromium is not installed)
"""
import html.parser
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
import zlib

REPRISE, SRC = sys.argv[1], sys.argv[2]
CHROMIUM = shutil.which('chromium') or shutil.which('chromium-browser')
TIMEOUT = 120
n = 0
failed = []


def ok(cond, desc, detail=''):
    global n
    n += 1
    print(('ok %d - %s' if cond else 'not ok %d - %s') % (n, desc))
    if not cond:
        failed.append(desc)
    if not cond and detail:
        for line in str(detail).splitlines()[:30]:
            print('# ' + line)
    return cond


def run(args, **kw):
    """Run args in its own process group; on timeout kill that group (by its pid) and fail."""
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True, **kw)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return 124, out, err
    return p.returncode, out, err


def png_pixels(path):
    """(width, height, distinct colours, share of pixels that are not near white) of an 8-bit RGB/RGBA PNG."""
    data = open(path, 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n':
        return None
    pos, idat = 8, b''
    w = h = depth = ctype = 0
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
        elif kind == b'IDAT':
            idat += body
        pos += 12 + length
    if depth != 8 or ctype not in (2, 6):
        return None
    bpp = 3 if ctype == 2 else 4
    raw, stride = zlib.decompress(idat), w * bpp
    prev, colours, dark, seen = bytearray(stride), set(), 0, 0
    for y in range(h):  # undo each row's filter (PNG spec, section 9)
        ft, row = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            left = row[i - bpp] if i >= bpp else 0
            up, ul = prev[i], prev[i - bpp] if i >= bpp else 0
            if ft == 1:
                row[i] = (row[i] + left) & 0xff
            elif ft == 2:
                row[i] = (row[i] + up) & 0xff
            elif ft == 3:
                row[i] = (row[i] + (left + up) // 2) & 0xff
            elif ft == 4:
                pa, pb, pc = abs(up - ul), abs(left - ul), abs(left + up - 2 * ul)
                row[i] = (row[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else ul)) & 0xff
        if y % 4 == 0:  # a sample of rows is enough to tell a page from a blank one
            for x in range(0, w, 4):
                px = bytes(row[x * bpp:x * bpp + 3])
                colours.add(px)
                dark += min(px) < 0xe0
                seen += 1
        prev = row
    return w, h, len(colours), dark / max(1, seen)


class Svg(html.parser.HTMLParser):
    """Each chart (svg data-chart) and the classed elements inside it, with their data- attributes."""

    def __init__(self):
        super().__init__()
        self.charts = []  # (chart name, attrs, [(tag, classes, attrs)])
        self.depth = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'svg' and 'data-chart' in a:
            self.charts.append((a['data-chart'], a, []))
            self.depth = 1
        elif self.depth:
            if tag == 'svg':
                self.depth += 1
            self.charts[-1][2].append((tag, set((a.get('class') or '').split()), a))

    def handle_endtag(self, tag):
        if tag == 'svg' and self.depth:
            self.depth -= 1

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)
        if tag == 'svg':
            self.handle_endtag(tag)


def main():
    if not CHROMIUM:
        print('1..0 # skip chromium is not installed (apt-get install chromium)')
        return 77
    tmp = tempfile.mkdtemp(prefix='reprise-html-')
    try:
        return body(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def body(tmp):
    trace = os.path.join(SRC, 'samples', 'smb2-small-files.rpz')
    a, b = os.path.join(tmp, 'a'), os.path.join(tmp, 'b')
    os.mkdir(a)
    os.mkdir(b)
    jsons = []
    for i, (target, backend) in enumerate([(a, 'posix'), (a, 'posix'), (b, 'null')]):
        out = os.path.join(tmp, 'r%d.json' % i)
        rc, _, err = run([REPRISE, 'replay', trace, '--target', target, '--backend', backend, '-t', '2', '-q',
                          '--json', out])
        ok(rc == 0, 'replay %s run %d' % (backend, i), err.decode(errors='replace'))
        jsons.append(out)
    # A bench file whose target's name would break a page that did not escape it.
    hostile = '<b>x</b> & "q" \'s'
    r0 = json.load(open(jsons[2]))
    bench = {'schema': 'reprise-bench/1', 'trace': {}, 'options': {}, 'order': [hostile],
             'targets': [{'target': hostile, 'fs_type': 'tmpfs', 'mount_options': 'rw',
                          'runs': [{'run': 1, 'discarded': False, 'final_sync_ns': 1000, 'dirty_bytes_at_end': 0,
                                    'result': r0}], 'summary': {}}]}
    bfile = os.path.join(tmp, 'bench.json')
    json.dump(bench, open(bfile, 'w'))
    report = os.path.join(tmp, 'report.html')
    rc, _, err = run([REPRISE, 'compare', '--html', report] + jsons + [bfile])
    if not ok(rc == 0, 'compare --html', err.decode(errors='replace')):
        print('1..%d' % n)
        return 1
    # What the page must show: targets, and per target the ops (with a histogram for the CDFs).
    results = [json.load(open(j)) for j in jsons] + [r0]
    targets = [a, b, hostile]
    owner = [a, a, b, hostile]
    ops_of = {t: set() for t in targets}
    hist_of = {t: set() for t in targets}
    for t, r in zip(owner, results):
        for op, v in r['ops'].items():
            ops_of[t].add(op)
            if v['histogram'] and v['histogram']['count']:
                hist_of[t].add(op)
    all_ops = set().union(*ops_of.values())

    # The DOM after load, and the console: an error there is a broken page.
    prof = os.path.join(tmp, 'profile')
    base = [CHROMIUM, '--headless', '--no-sandbox', '--disable-gpu', '--user-data-dir=' + prof,
            '--no-first-run', '--disable-extensions', '--enable-logging=stderr', '--v=0']
    url = 'file://' + report
    rc, dom, err = run(base + ['--dump-dom', url])
    err = err.decode(errors='replace')
    ok(rc == 0 and b'</html>' in dom, 'chromium loads the page (--dump-dom)', err)
    console = [l for l in err.splitlines() if 'CONSOLE' in l or 'Uncaught' in l]
    ok(not console, 'no console errors', '\n'.join(console))
    # The check itself: a page with a script error does show up on chromium's log.
    bad = os.path.join(tmp, 'bad.html')
    open(bad, 'w').write('<!DOCTYPE html><html><head><title>x</title></head><body><script>nosuchfn();</script></body></html>')
    rc, _, err = run(base + ['--dump-dom', 'file://' + bad])
    ok(b'CONSOLE' in err and b'nosuchfn' in err, 'a console error would be seen (a page with one)',
       err.decode(errors='replace'))
    shot = os.path.join(tmp, 'shot.png')
    rc, _, err = run(base + ['--screenshot=' + shot, '--window-size=1000,1600', '--hide-scrollbars', url])
    px = png_pixels(shot) if os.path.exists(shot) else None
    ok(rc == 0 and px is not None, 'a PNG screenshot', err.decode(errors='replace'))
    if px:
        w, h, distinct, nonwhite = px
        ok(w == 1000 and h == 1600, 'the screenshot has the window size', px)
        # a blank page is one colour; the report's text, lines and bars make many and cover a few percent
        ok(distinct > 20 and 0.01 < nonwhite < 0.6, 'the screenshot is not blank (%d colours, %.1f%% not white)' %
           (distinct, 100 * nonwhite), px)

    page = open(report, encoding='utf-8').read()
    ok('<script' not in page and '<b>x</b>' not in page, 'the hostile name is escaped')
    # Each chart is well-formed XML too (an SVG viewer, or a tool that cuts it out, reads it alone).
    bad = []
    svgs = re.findall(r'<svg class="chart".*?</svg>', page, re.S)
    for x in svgs:
        try:
            ET.fromstring(x)
        except ET.ParseError as e:
            bad.append('%s: %s' % (e, x[:200]))
    ok(svgs and not bad, 'every chart (%d) is well-formed SVG' % len(svgs), '\n'.join(bad))
    p = Svg()
    p.feed(page)
    charts = {}
    for name, attrs, elems in p.charts:
        charts.setdefault(name, []).append(elems)
    ok(set(charts) >= {'throughput', 'ops-over-time', 'cdf', 'timeshare', 'spread'}, 'every chart is there', sorted(charts))

    def series(name, cls):
        return [e for elems in charts.get(name, []) for e in elems if cls <= e[1]]

    med = series('throughput', {'series', 'median'})
    got = sorted(e[2].get('data-target') for e in med)
    ok(got == sorted(targets), 'one throughput line per target', got)
    runs = series('throughput', {'series', 'run'})
    got = sorted((e[2].get('data-target'), e[2].get('data-run')) for e in runs)
    ok(got == [(a, '1'), (a, '1')] or len(got) == 2 and all(t == a for t, _ in got),
       'thin lines for the runs of the target that has two', got)
    ok(all(e[2].get('d', '').startswith('M') and e[2]['d'].count('L') >= 1 for e in med),
       'each throughput line has points')

    cdf = series('cdf', {'series', 'cdf'})
    got = sorted((e[2].get('data-target'), e[2].get('data-op')) for e in cdf)
    want = sorted((t, op) for t in targets for op in hist_of[t])
    ok(got == want, 'one CDF curve per op type per target (%d)' % len(want), 'got %s\nwant %s' % (got, want))
    ok(len(charts.get('cdf', [])) == len(set().union(*hist_of.values())), 'a CDF chart per op type')

    bars = series('timeshare', {'bar', 'timeshare'})
    got = sorted((e[2].get('data-target'), e[2].get('data-op')) for e in bars)
    fs_ops = {op for op in all_ops if op not in ('fork', 'wait', 'exec', 'exit', 'sleep')}
    want = sorted((t, op) for t in targets for op in fs_ops)
    ok(got == want, '"where the time went" bars for each file-system op, per target', 'got %s\nwant %s' % (got, want))
    shares = {}
    for e in bars:
        shares.setdefault(e[2]['data-target'], 0.0)
        shares[e[2]['data-target']] += float(e[2]['data-share'])
    ok(all(abs(v - 1) < 1e-3 for v in shares.values()), "each target's time shares add up to 1", shares)
    # the shares differ between a real directory and the null backend (the op mix would not)
    def share(t, op):
        return [float(e[2]['data-share']) for e in bars if e[2]['data-target'] == t and e[2]['data-op'] == op]
    ok(any(abs(share(a, op)[0] - share(b, op)[0]) > 0.01 for op in fs_ops if share(a, op) and share(b, op)),
       'the time shares are the targets\' own, not one op mix', bars[:4])

    spread = series('spread', {'spread'})
    got = sorted((e[2].get('data-metric'), e[2].get('data-target')) for e in spread)
    want = sorted((m, t) for m in ('mb_per_sec', 'ops_per_sec') for t in targets)
    ok(got == want, 'a spread row per target for MB/s and ops/s', got)
    two = [e for e in spread if e[2].get('data-target') == a and e[2].get('data-metric') == 'mb_per_sec']
    mbs = sorted(json.load(open(j))['mb_per_sec'] for j in jsons[:2])
    ok(two and abs(float(two[0][2]['data-min']) - mbs[0]) < 1e-3 * max(1, mbs[0]) and
       abs(float(two[0][2]['data-max']) - mbs[1]) < 1e-3 * max(1, mbs[1]),
       "the spread's whiskers are the two runs' MB/s", (two and two[0][2], mbs))
    labels = [e for elems in charts.get('throughput', []) for e in elems if e[0] == 'text' and 'label' in e[1]]
    ok(len(labels) >= 2, 'the throughput chart labels its axes')
    truth(tmp, page, report, jsons, base, trace, a, b)
    print('1..%d' % n)
    return 1 if failed else 0


class Page(html.parser.HTMLParser):
    """The provenance section's text, the table's header cells (text, title) and rows (data-why, cell texts)."""

    def __init__(self):
        super().__init__()
        self.prov, self.heads, self.rows = '', [], []
        self.in_prov = self.in_th = self.in_td = False
        self.title = None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == 'section' and a.get('id') == 'provenance':
            self.in_prov = True
        if tag == 'table' and a.get('class') == 'compare':
            self.in_table = True
        if getattr(self, 'in_table', False):
            if tag == 'th' and len(self.rows) <= 1:
                self.in_th, self.heads = True, self.heads + [['', None]]
            if tag == 'span' and self.in_th and 'tlabel' in (a.get('class') or ''):
                self.heads[-1][1] = a.get('title')
            if tag == 'tr':
                self.rows.append([a.get('data-why'), []])
            if tag == 'td':
                self.in_td = True
                self.rows[-1][1].append('')

    def handle_endtag(self, tag):
        if tag == 'section':
            self.in_prov = False
        if tag == 'table':
            self.in_table = False
        if tag == 'th':
            self.in_th = False
        if tag == 'td':
            self.in_td = False

    def handle_data(self, d):
        if self.in_prov:
            self.prov += d
        if self.in_th:
            self.heads[-1][0] += d
        if self.in_td and self.rows:
            self.rows[-1][1][-1] += d


def truth(tmp, page, report, jsons, base, trace, a, b):
    """Issue 25's items on the page: provenance, short labels, no star on ties, no ratio against ~0, mixed traces."""
    r0 = json.load(open(jsons[0]))
    p = Page()
    p.feed(page)
    prov = r0['provenance']
    want = [prov['trace']['sha256'], prov['trace']['path'], prov['host'], prov['kernel'], prov['reprise_version'],
            prov['start_time'], 'replay', '--json']
    missing = [w for w in want if w not in p.prov]
    ok(not missing, 'a provenance header: workload, sha256, command line, host, kernel, version, date', missing)
    ok('ops' in p.prov and 'clients' in p.prov and 'duration' in p.prov, 'the header has ops, clients and duration', p.prov[:400])
    heads = [(t.strip(), title) for t, title in p.heads[1:]]
    # the two directories share a file system: their last path components label them, the full path in the title
    ok([h[0] for h in heads[:2]] == ['A a1', 'B b2'] and heads[0][1].startswith(a) and heads[1][1].startswith(b),
       'short target labels, the full path in the tooltip', heads)
    ok(all(len(t) <= 70 for t, _ in heads), 'no long label in the header row', heads)
    star = '\u2605'
    tied = [r for r in p.rows if r[0] == 'equal for every target']
    ok(tied and not any(star in c for r in tied for c in r[1]), 'no star on rows equal for every target (%d)' % len(tied),
       tied[:3])
    # the null backend's latencies are about 0 (2e-05 ms): no ratio against them, a difference instead
    ratio_vs_zero = [r for r in p.rows if r[1] and r[1][0].split(' ')[0] in ('open', 'close', 'read') and 'p50' in r[1][0]
                     and any(re.search(r'[0-9]x$', c.strip()) for c in r[1][1:])]
    ok(not ratio_vs_zero, 'no ratio against a best of about 0', ratio_vs_zero[:3])
    # runs of another trace: refused with both named, and no page written
    other = json.load(open(jsons[2]))
    other['provenance']['trace']['sha256'] = 'cd' * 32
    other['provenance']['trace']['path'] = 'bonnie.rpz'
    ofile = os.path.join(tmp, 'other.json')
    json.dump(other, open(ofile, 'w'))
    mixed = os.path.join(tmp, 'mixed.html')
    rc, _, err = run([REPRISE, 'compare', '--html', mixed, jsons[0], ofile])
    err = err.decode(errors='replace')
    ok(rc == 2 and 'bonnie.rpz' in err and prov['trace']['path'] in err and not os.path.exists(mixed),
       'inputs of different workloads: refused (exit 2), both named, no page', (rc, err))
    # fixed-work runs (no -t): aligned by trace progress, time-to-complete bars, a log scale for the outlier target
    fa = os.path.join(tmp, 'fa.json')
    fb = os.path.join(tmp, 'fb.json')
    for out, target, backend in ((fa, a, 'posix'), (fb, b, 'null')):
        rc, _, err = run([REPRISE, 'replay', trace, '--target', target, '--backend', backend, '-q', '--json', out])
        ok(rc == 0, 'fixed-work replay on %s' % backend, err.decode(errors='replace'))
    fixed = os.path.join(tmp, 'fixed.html')
    rc, _, err = run([REPRISE, 'compare', '--html', fixed, fa, fb])
    ok(rc == 0, 'compare --html of fixed-work runs', err.decode(errors='replace'))
    sv = Svg()
    sv.feed(open(fixed, encoding='utf-8').read())
    names = {c[0]: c[1] for c in sv.charts}
    ok(names.get('throughput', {}).get('data-x') == 'progress', 'over-time charts aligned by trace progress',
       names.get('throughput'))
    comp = [e for c in sv.charts if c[0] == 'complete' for e in c[2] if {'bar', 'complete'} <= e[1]]
    ok(len(comp) == 2, 'time-to-complete bars, one per target', comp)
    spread = [c[1] for c in sv.charts if c[0] in ('spread', 'complete')]
    ok(any(x.get('data-scale') == 'log' for x in spread),
       'a log scale where one target is more than 10x another', spread)
    rc, dom, err = run(base + ['--dump-dom', 'file://' + fixed])
    console = [l for l in err.decode(errors='replace').splitlines() if 'CONSOLE' in l or 'Uncaught' in l]
    ok(rc == 0 and b'</html>' in dom and not console, 'chromium loads the fixed-work page, no console error', console)



if __name__ == '__main__':
    sys.exit(main())
