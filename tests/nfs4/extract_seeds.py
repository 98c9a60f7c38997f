#!/usr/bin/env python3
"""Make fuzz seeds for fuzz_nfs4.c from NFSv4 COMPOUNDs in pcap files (Ethernet/IPv4/TCP).

Usage: extract_seeds.py OUTDIR PREFIX FILE.pcap...  (pcapng: convert with editcap -F pcap first)
The committed corpus_nfs4/ came from tests/data/pcap: suricata-verify nfs4-01 (nfs4-01-*, MIT),
nfstrace eth-ipv4-tcp-nfsv41 (nfsv41-*, GPL-2.0) and nfsv40-port774-head (v40head-*, GPL-2.0).
Each seed holds up to 8 consecutive call/reply pairs as
[flags u8][call length be16][reply length be16][call args][reply results];
a body longer than 65535 bytes is cut and flagged (bit 0 call, bit 1 reply).
"""
import os
import struct
import sys


def packets(path):
    with open(path, 'rb') as f:
        data = f.read()
    magic = struct.unpack('<I', data[:4])[0]
    end = '<' if magic in (0xa1b2c3d4, 0xa1b23c4d) else '>'
    linktype = struct.unpack(end + 'I', data[20:24])[0]
    at = 24
    while at + 16 <= len(data):
        _, _, incl, _ = struct.unpack(end + 'IIII', data[at:at + 16])
        yield linktype, data[at + 16:at + 16 + incl]
        at += 16 + incl


def tcp_payloads(path):
    for linktype, frame in packets(path):
        if linktype != 1 or len(frame) < 14:
            continue
        off, etype = 14, struct.unpack('>H', frame[12:14])[0]
        if etype == 0x8100:
            etype, off = struct.unpack('>H', frame[16:18])[0], 18
        if etype != 0x0800:
            continue
        ip = frame[off:]
        ihl = (ip[0] & 15) * 4
        total = struct.unpack('>H', ip[2:4])[0]
        if ip[9] != 6:
            continue
        tcp = ip[ihl:total]
        sport, dport, seq = struct.unpack('>HHI', tcp[:8])
        doff = (tcp[12] >> 4) * 4
        payload = tcp[doff:]
        if payload:
            yield (ip[12:16], sport, ip[16:20], dport), seq, payload


def streams(path):
    flows = {}
    for key, seq, payload in tcp_payloads(path):
        flows.setdefault(key, {})[seq] = payload
    for key, segs in flows.items():
        buf, nxt = b'', None
        for seq in sorted(segs):
            p = segs[seq]
            if nxt is not None and seq < nxt:
                p = p[nxt - seq:]
            buf += p
            nxt = seq + len(segs[seq]) if nxt is None or seq + len(segs[seq]) > nxt else nxt
        yield key, buf


def records(buf):
    at, rec = 0, b''
    while at + 4 <= len(buf):
        mark = struct.unpack('>I', buf[at:at + 4])[0]
        n = mark & 0x7fffffff
        rec += buf[at + 4:at + 4 + n]
        at += 4 + n
        if mark & 0x80000000:
            yield rec
            rec = b''


def parse(rec):
    if len(rec) < 8:
        return None
    xid, mtype = struct.unpack('>II', rec[:8])
    try:
        if mtype == 0:
            _, prog, vers, proc = struct.unpack('>IIII', rec[8:24])
            at = 24
            for _ in range(2):
                n = struct.unpack('>I', rec[at + 4:at + 8])[0]
                at += 8 + (n + 3) // 4 * 4
            if prog == 100003 and vers == 4 and proc == 1:
                return ('call', xid, rec[at:])
        elif mtype == 1:
            if struct.unpack('>I', rec[8:12])[0] != 0:
                return None
            n = struct.unpack('>I', rec[16:20])[0]
            at = 20 + (n + 3) // 4 * 4
            if struct.unpack('>I', rec[at:at + 4])[0] == 0:
                return ('reply', xid, rec[at + 4:])
    except struct.error:
        return None
    return None


def main():
    out, prefix, files = sys.argv[1], sys.argv[2], sys.argv[3:]
    calls, pairs = {}, []
    for path in files:
        for _, buf in streams(path):
            for rec in records(buf):
                m = parse(rec)
                if m and m[0] == 'call':
                    calls[m[1]] = m[2]
                elif m and m[0] == 'reply' and m[1] in calls:
                    pairs.append((calls.pop(m[1]), m[2]))
    os.makedirs(out, exist_ok=True)
    for i in range(0, len(pairs), 8):
        seed = b''
        for call, reply in pairs[i:i + 8]:
            flags = (1 if len(call) > 65535 else 0) | (2 if len(reply) > 65535 else 0)
            call, reply = call[:65535], reply[:65535]
            seed += struct.pack('>BHH', flags, len(call), len(reply)) + call + reply
        with open(os.path.join(out, '%s-%03d' % (prefix, i // 8)), 'wb') as f:
            f.write(seed)
    print('%d pairs -> %d seeds' % (len(pairs), (len(pairs) + 7) // 8))


if __name__ == '__main__':
    main()
