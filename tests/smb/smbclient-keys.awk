# The session keys smbclient -d 10 --option='debug encryption=yes' dumps, as one --smb-keys line:
# SESSIONID:SESSIONKEY:S2C:C2S (S2C is Samba's "ServerOut" key, C2S its "ServerIn" key).
# Each dump line is "Name [0000] XX XX ... ascii"; a 32-byte key continues on a "[0010]" line.
function bytes(start, want,    i, s, n) {
	s = ""; n = 0
	for (i = start; i <= NF && n < want; i++)
		if ($i ~ /^[0-9A-F][0-9A-F]$/) { s = s tolower($i); n++ }
	return s
}
/^Session Id +\[0000\]/ { sid = bytes(4, 8); cur = "" }
/^Session Key +\[0000\]/ { key = bytes(4, 16); cur = "key" }
/^Signing Key|^App Key/ { cur = "" }
/^ServerIn Key +\[0000\]/ { c2s = bytes(4, 16); cur = "c2s" }
/^ServerOut Key +\[0000\]/ { s2c = bytes(4, 16); cur = "s2c" }
/^\[0010\]/ {
	if (cur == "c2s") c2s = c2s bytes(2, 16)
	else if (cur == "s2c") s2c = s2c bytes(2, 16)
	else if (cur == "key") key = key bytes(2, 16)
}
END { if (sid != "" && key != "") print sid ":" key ":" s2c ":" c2s }
