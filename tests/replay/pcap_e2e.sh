#!/bin/sh
# End-to-end replay of packet captures through the reprise binary (TAP): convert, replay on an empty directory, no false mismatches, one op at a time in client order, with --max-inflight 16, and with the defaults (--max-inflight auto, --order auto).
# The mismatches a capture may keep are the real ones listed in docs/replay.md ("Replaying packet traces").
set -u
reprise=$1
pcaps=$2
tmp=$(mktemp -d "${TMPDIR:-/tmp}/reprise-pcap-e2e-XXXXXX")
trap 'rm -rf "$tmp"' EXIT
n=0
# capture | mismatches allowed | python condition every mismatch sample must meet (s: one sample)
cases='suricata-verify__nfs3-01__input.pcap|0|False
zeek__nfs_nfs_write.pcap|0|False
nfstrace__eth-ipv6-tcp-nfsv3__pkts1-1500.pcap|0|False
suricata-verify__nfs4-01__input.pcap|0|False
nfstrace__nfsv3-4-41-cifs1-2__nfsv40-port774-head.pcap|0|False
nfstrace__2sessions-tcp-wsize32k-tcp-wsize512k__pkts1-2400.pcap|0|False
nfstrace__eth-ipv4-tcp-nfsv41.pcap|0|False
nfstrace__eth-ipv4-tcp-cifs2.pcap|0|False
reprise__smb1-nt1-smbclient.pcap|0|False
reprise__smb3-smbclient.pcap|0|False
zeek__smb_smb2readwrite.pcap|0|False
zeek__smb_smb2.delete-on-close-perms-delete-existing.pcap|0|False
zeek__smb_smb3_multichannel.pcap|0|False
zeek__krb_smb2_krb.pcap|0|False
zeek__smb_smb2_100_small_files.pcap|0|False
reprise__smb2-locks-smbtorture.pcap|0|False
reprise__nfs4-locks.pcap|2|s["op"] == "close" and s["expected"] == "OTHER" and s["actual"] == "OK"
reprise__smb2-then-nfs4-merged.pcap|2|s["op"] == "close" and s["expected"] == "OTHER" and s["actual"] == "OK"
suricata-verify__smb2-01__smb2-peter.pcap|17|s["op"] == "close" and s["expected"] == "EACCES" and s["actual"] == "OK"'
echo "1..$(printf '%s\n' "$cases" | wc -l)"
printf '%s\n' "$cases" | while IFS='|' read -r cap want cond; do
	n=$((n + 1))
	if [ ! -r "$pcaps/$cap" ]; then
		echo "not ok $n - $cap: missing"
		continue
	fi
	dir="$tmp/$n"
	mkdir "$dir" "$dir/target"
	if ! "$reprise" convert -q "$pcaps/$cap" "$dir/t.rpz" 2>"$dir/err"; then
		if grep -q 'built without libpcap' "$dir/err"; then
			echo "ok $n - $cap # SKIP needs libpcap, and this build (-Dpcap=disabled) has none"
			continue
		fi
		echo "not ok $n - $cap: convert failed"
		sed 's/^/# /' "$dir/err"
		continue
	fi
	# Once one op at a time in client order, once with the in-flight window (ops the capture overlapped
	# run together), once with the defaults (each client's recorded depth, the order auto picks): the
	# dependency rule must keep every status the same.
	mkdir "$dir/target2" "$dir/target3"
	"$reprise" replay "$dir/t.rpz" --target "$dir/target" -q --max-inflight 1 --order client --json "$dir/r.json" >"$dir/out" 2>&1
	"$reprise" replay "$dir/t.rpz" --target "$dir/target2" -q --max-inflight 16 --json "$dir/r2.json" >"$dir/out2" 2>&1
	"$reprise" replay "$dir/t.rpz" --target "$dir/target3" -q --json "$dir/r3.json" >"$dir/out3" 2>&1
	if python3 - "$dir/r.json" "$dir/r2.json" "$dir/r3.json" "$want" "$cond" <<'EOF'
import json, sys
want, cond = int(sys.argv[4]), sys.argv[5]
ok = True
for f in sys.argv[1:4]:
    d = json.load(open(f))
    bad = [s for s in d["mismatch_samples"] if not eval(cond, {}, {"s": s})]
    for s in d["mismatch_samples"]:
        print("# %s mismatch: client %d op %d %s %s: expected %s, got %s" %
              (f.rsplit("/", 1)[1], s["client"], s["index"], s["op"], s["path"], s["expected"], s["actual"]))
    ok = ok and d["stop"] == "end" and d["mismatches"] == want and not bad and d["total_ops"] > 0
sys.exit(0 if ok else 1)
EOF
	then
		echo "ok $n - $cap: $want mismatches (the documented ones), also with --max-inflight 16 and the defaults"
	else
		echo "not ok $n - $cap: expected $want documented mismatches, one at a time, with --max-inflight 16 and the defaults"
	fi
done | awk '{ print } /^not ok/ { f = 1 } END { exit f }'
