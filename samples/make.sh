#!/bin/sh
# Recreate the sample traces in samples/ from the bundled captures (tests/data/pcap/).
#   samples/make.sh [REPRISE]     (default: build/cli/reprise)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
reprise=${1:-$top/build/cli/reprise}
pcap=$top/tests/data/pcap
out=$top/samples

# SMB2: a client copying 100 small files (zeek test capture), as a trace and as a dbench loadfile.
"$reprise" convert -q "$pcap/zeek__smb_smb2_100_small_files.pcap" "$out/smb2-small-files.rpz"
"$reprise" convert -q "$out/smb2-small-files.rpz" "$out/smb2-small-files.txt"
# NFSv3: writes over TCP (zeek test capture), as a trace and as an NFS-dialect loadfile.
"$reprise" convert -q "$pcap/zeek__nfs_nfs_write.pcap" "$out/nfs3-write.rpz"
"$reprise" convert -q "$out/nfs3-write.rpz" "$out/nfs3-write.txt"
# NFSv4.1: a client session (nfstrace test capture).
"$reprise" convert -q "$pcap/nfstrace__eth-ipv4-tcp-nfsv41.pcap" "$out/nfs41-session.rpz"
echo "samples made in $out"
