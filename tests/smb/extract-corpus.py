#!/usr/bin/env python3
"""Cut SMB messages out of captures into fuzz seeds for fuzz_smb1/fuzz_smb2/fuzz_smb3 (their record format).

Usage: extract-corpus.py OUTDIR MAGIC(fe|ff|fe,fd) CAPTURE...  (needs tshark; run once, seeds are committed)
A seed holds up to 12 consecutive messages of one capture: [flags][len BE16][bytes], flags bit 0 =
from the server (source port 445/139/4445/4455), bit 1 = cut (message longer than 2048 bytes, kept short).
MAGIC lists the first bytes of the messages kept: fe (SMB2), ff (SMB1), fd (SMB3 transform).
"""
import os
import subprocess
import sys

SERVER_PORTS = {445, 139, 4445, 4455}


def messages(path):
    out = subprocess.run(
        ["tshark", "-r", path, "-o", "tcp.desegment_tcp_streams:TRUE", "-d", "tcp.port==4455,nbss", "-Y", "nbss",
         "-T", "fields", "-e", "tcp.srcport", "-e", "tcp.reassembled.data", "-e", "tcp.payload"],
        check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split("\t")
        if len(parts) < 3:
            continue
        data = bytes.fromhex((parts[1] or parts[2]).replace(":", ""))
        sport = int(parts[0].split(",")[0])
        at = 0
        while at + 4 <= len(data):
            n = int.from_bytes(data[at + 1:at + 4], "big")
            if data[at] == 0:
                yield sport in SERVER_PORTS, data[at + 4:at + 4 + n]
            at += 4 + n


def main():
    outdir, caps = sys.argv[1], sys.argv[3:]
    magic = [bytes.fromhex(x) for x in sys.argv[2].split(",")]
    for cap in caps:
        base = os.path.basename(cap).split(".")[0]
        msgs = [(s, m) for s, m in messages(cap) if m[:1] in magic]
        for k in range(0, min(len(msgs), 12 * 8), 12):
            seed = bytearray()
            for server, m in msgs[k:k + 12]:
                cut = len(m) > 2048
                m = m[:2048]
                seed += bytes([(1 if server else 0) | (2 if cut else 0)]) + len(m).to_bytes(2, "big") + m
            with open(os.path.join(outdir, "%s-%03d" % (base, k // 12)), "wb") as f:
                f.write(seed)


if __name__ == "__main__":
    main()
