# Ports for the test servers (sourced): ports no socket uses, below the kernel's ephemeral range.
# A port that is only checked for a listener can still be the local port of a connection, even one
# in TIME_WAIT (ports 32768-60999 are handed out to outgoing connections), and then a server's bind
# fails with EADDRINUSE: ganesha, which binds [::] too, dies at start.  So every socket counts here,
# listening or not, IPv4 and IPv6, and the ports come from below the ephemeral range.

# port_in_use PORT: whether any TCP socket of this host has PORT as its local port.
port_in_use() {
	local hex
	hex=$(printf ':%04X' "$1")
	awk -v p="$hex" 'FNR > 1 && substr($2, length($2) - 4) == p { found = 1; exit } END { exit !found }' \
		/proc/net/tcp /proc/net/tcp6 2>/dev/null
}

# free_ports SEED [COUNT]: the first port P of COUNT (default 2) consecutive free ports, P even,
# starting from a place SEED picks (e.g. $$, so parallel tests start apart) in 12000-31999.
free_ports() {
	local count=${2:-2} p i used tries=0
	p=$((12000 + ($1 % 5000) * 4))
	while [ "$tries" -lt 5000 ]; do
		used=
		for ((i = 0; i < count; i++)); do port_in_use $((p + i)) && { used=1; break; }; done
		[ -z "$used" ] && { echo "$p"; return 0; }
		p=$((p + 4))
		[ $((p + count)) -lt 32000 ] || p=12000
		tries=$((tries + 1))
	done
	echo "free_ports: no $count free ports in 12000-31999" >&2
	return 1
}
