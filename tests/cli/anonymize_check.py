#!/usr/bin/env python3
"""Checks for tests/cli/anonymize.sh on `reprise cat` text and the output file's bytes.

  anonymize_check.py leaks ORIG.cat OUT [NAME...]   every original component (>= 3 bytes) and NAME
                                                     searched in OUT's bytes, and for an .rpz in every
                                                     frame's decompressed content and string table
  anonymize_check.py structure ORIG.cat ANON.cat    op by op: the same fields but names and ids, the
                                                     same separators, . and .., a one-to-one mapping
Prints what it found wrong (nothing when all is well) and exits 1 if anything was.
"""
import re
import subprocess
import sys

FIELD = re.compile(r'(path2?)="((?:[^"\\]|\\.)*)"')
WILD = re.compile(rb'[*?<>"]')
SEP = re.compile(rb'[/\\]')
PSEUDO = re.compile(rb'[a-z2-7]{12}')


def unescape(s):
    out, i = bytearray(), 0
    while i < len(s):
        c = s[i]
        if c == '\\' and s[i + 1] == 'x':
            out.append(int(s[i + 2:i + 4], 16))
            i += 4
        elif c == '\\':
            out.append(ord(s[i + 1]))
            i += 2
        else:
            out.append(ord(c))
            i += 1
    return bytes(out)


def ops(cat):
    """(op name, {field: bytes}, the line without its names, uids, gids and set times) per op line."""
    res = []
    for line in open(cat, encoding='latin-1'):
        if line.startswith('#') or not line.strip():
            continue
        op = line.split()[3]
        fields = {m.group(1): unescape(m.group(2)) for m in FIELD.finditer(line)}
        rest = FIELD.sub('', line)
        rest = re.sub(r' (uid|gid|atime|mtime)=\S+', '', rest)
        res.append((op, fields, rest))
    return res


def components(op, field, s):
    """The names in a string as the anonymizer sees them (docs/anonymize.md)."""
    if field == 'path2' and op in ('getxattr', 'setxattr', 'listxattr', 'removexattr'):
        if s.startswith((b'system.', b'security.')):
            return []  # the kernel's names, kept
        for p in (b'user.', b'trusted.'):
            if s.startswith(p):
                s = s[len(p):]
        return [s] if s else []
    parts = SEP.split(s)
    if field == 'path2' and op == 'readdir':
        parts = [r for p in parts for r in WILD.split(p)]
    return [p for p in parts if p not in (b'', b'.', b'..')]


def originals(cat):
    names = set()
    for op, fields, _ in ops(cat):
        for f, s in fields.items():
            names.update(c for c in components(op, f, s) if len(c) >= 3)
    return names


def varint(b, i):
    v = shift = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return v, i


def rpz_strings(path):
    """Every frame's content (docs/rpz-format.md §4) decompressed by zstd(1): its strings and its other bytes."""
    raw = open(path, 'rb').read()
    h = int.from_bytes(raw[12:16], 'little')
    content = subprocess.run(['zstd', '-dcq'], input=raw[h:], stdout=subprocess.PIPE, check=True).stdout
    strings, other, i = [], bytearray(), 0
    while i < len(content):
        start = i
        vals = []
        for _ in range(9):
            v, i = varint(content, i)
            vals.append(v)
        n_strings, strings_len, shapes_len, n_cols = vals[4], vals[5], vals[7], vals[8]
        cols = 0
        for _ in range(n_cols):
            v, i = varint(content, i)
            cols += v
        other += content[start:i]
        end = i + strings_len
        for _ in range(n_strings):
            n, i = varint(content, i)
            strings.append(content[i:i + n])
            i += n
        assert i == end, 'strings section'
        other += content[i:i + shapes_len + cols]
        i += shapes_len + cols
    return content, strings, bytes(other)


def leaks(cat, out, extra):
    names = originals(cat)
    names.update(e.encode() for e in extra if len(e) >= 3)
    raw = open(out, 'rb').read()
    bad = []
    if raw[:4] == b'RPZ\x89':
        h = int.from_bytes(raw[12:16], 'little')
        bad += [('the header', n) for n in sorted(names) if n in raw[:h]]
        # The compressed frames are searched for names of 6 bytes and more: a 3-byte string turns up
        # by chance in a megabyte of compressed bytes (p = 2^20 / 2^24); what they hold is checked
        # below, decompressed, for every name.
        bad += [('file bytes', n) for n in sorted(names) if len(n) >= 6 and n in raw[h:]]
        content, strings, other = rpz_strings(out)
        # What is left of the strings once their pseudonyms are taken out: separators, dots, wildcards,
        # namespace prefixes, kept extensions.  No original name may be in it, nor be a whole component.
        rest = b'\0'.join(PSEUDO.sub(b'\0', s) for s in strings)
        comps = {c for s in strings for c in SEP.split(s)}
        bad += [('the strings', n) for n in sorted(names) if n in rest]
        bad += [('a component of the strings', n) for n in sorted(names & comps)]
        # The rest of the content is numbers (varints), whose bytes can spell a short name ("0000" is four
        # 48s): searched for names of 6 bytes and more, as the compressed bytes are.
        bad += [('frame content', n) for n in sorted(names) if len(n) >= 6 and n in other]
        if not strings and names:
            bad.append(('no strings in the output', b''))
    else:
        bad += [('file bytes', n) for n in sorted(names) if n in raw]
    for where, n in bad:
        print('leak in %s: %r' % (where, n))
    print('# %d original names searched in %s' % (len(names), out))
    return 1 if bad else 0


def structure(orig_cat, anon_cat):
    a, b = ops(orig_cat), ops(anon_cat)
    bad = []
    if len(a) != len(b):
        bad.append('%d ops, then %d' % (len(a), len(b)))
    fwd, back = {}, {}
    for k, ((op, fa, ra), (op2, fb, rb)) in enumerate(zip(a, b)):
        if ra != rb:
            bad.append('op %d: %r became %r' % (k, ra, rb))
        if set(fa) != set(fb):
            bad.append('op %d: fields %s became %s' % (k, sorted(fa), sorted(fb)))
            continue
        for f in fa:
            sa, sb = fa[f], fb[f]
            if op == 'readdir' and f == 'path2' or op.endswith('xattr') and f == 'path2':
                continue  # patterns and xattr names: checked by the unit tests
            pa, pb = SEP.split(sa), SEP.split(sb)
            if SEP.findall(sa) != SEP.findall(sb) or len(pa) != len(pb):
                bad.append('op %d: %r and %r differ in their separators' % (k, sa, sb))
                continue
            for x, y in zip(pa, pb):
                if x in (b'', b'.', b'..') or y in (b'', b'.', b'..'):
                    if x != y:
                        bad.append('op %d: %r became %r' % (k, x, y))
                    continue
                if fwd.setdefault(x, y) != y or back.setdefault(y, x) != x:
                    bad.append('op %d: %r -> %r is not one-to-one' % (k, x, y))
    for m in bad[:20]:
        print(m)
    print('# %d ops, %d names mapped one to one' % (len(a), len(fwd)))
    return 1 if bad else 0


if __name__ == '__main__':
    if sys.argv[1] == 'leaks':
        sys.exit(leaks(sys.argv[2], sys.argv[3], sys.argv[4:]))
    sys.exit(structure(sys.argv[2], sys.argv[3]))
