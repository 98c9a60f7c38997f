#!/usr/bin/env python3
"""Cross-copy correlation of per-bin op counts in a --scale-space trace (tests/cli/scale.sh).

    scale_corr.py CAT_TEXT IDS_PER_COPY COPIES [BIN_SECONDS]

CAT_TEXT is `reprise cat` of the scaled trace; copy k (0-based) holds the client ids
k*IDS_PER_COPY .. (k+1)*IDS_PER_COPY-1.  Prints the largest and the mean Pearson correlation over
every pair of copies of their op counts per bin (default 0.1 s), over the whole bins from the later
first start to the earlier last start, and the pairs that share fewer than 10 bins (not counted).
Sleeps are no load and are left out.  Times are read as integer ns, so the bins are those of
convert's own measure (converters/scale.h, its summary's "correlation" line) to the op.
"""
import math
import sys


def ns(text):
    """reprise cat's seconds (9 decimals) as an integer of ns."""
    whole, _, frac = text.partition('.')
    return int(whole) * 1000000000 + int((frac + '000000000')[:9])


def main():
    path, per, copies = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    step = ns(sys.argv[4]) if len(sys.argv) > 4 else 100000000
    starts = [[] for _ in range(copies)]
    for line in open(path):
        f = line.split(' ', 4)
        if f[3] == 'sleep':
            continue
        k = int(f[2][1:]) // per
        starts[k].append(ns(f[0]))
    worst, total, pairs, short = -1.0, 0.0, 0, 0
    for i in range(copies):
        for j in range(i + 1, copies):
            lo = max(min(starts[i]), min(starts[j]))
            hi = min(max(starts[i]), max(starts[j]))
            bins = (hi - lo) // step if hi > lo else 0
            if bins < 10:
                short += 1
                continue
            a, b = [0] * bins, [0] * bins
            # an op before lo is in no bin (int() of a small negative quotient, the first version's, put it in the first)
            for t in starts[i]:
                x = (t - lo) // step
                if 0 <= x < bins:
                    a[x] += 1
            for t in starts[j]:
                x = (t - lo) // step
                if 0 <= x < bins:
                    b[x] += 1
            ma, mb = sum(a) / bins, sum(b) / bins
            cov = sum((x - ma) * (y - mb) for x, y in zip(a, b))
            va = sum((x - ma) ** 2 for x in a)
            vb = sum((y - mb) ** 2 for y in b)
            r = cov / math.sqrt(va * vb) if va > 0 and vb > 0 else (1.0 if a == b else 0.0)
            worst = max(worst, r)
            total += r
            pairs += 1
    print('max %.3f mean %.3f pairs %d short %d' % (worst, total / pairs if pairs else 0.0, pairs, short))


main()
