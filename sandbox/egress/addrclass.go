package egress

import "net/netip"

// specialRanges are IPv4 ranges an allowed name may not lead to: the
// host's own services and addresses that are never a remote server. Only
// an entry naming the address itself reaches them. Private ranges
// (10/8, 172.16/12, 192.168/16, 100.64/10) are not here: an internal model
// gateway resolved by the operator's DNS is an ordinary allowed host.
var specialRanges = [...]struct { //nolint:gochecknoglobals // read-only table of special IPv4 ranges
	prefix netip.Prefix
	class  string
}{
	{netip.MustParsePrefix("0.0.0.0/8"), "\"this network\" (0.0.0.0/8)"},
	{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
	{netip.MustParsePrefix("169.254.0.0/16"), "link-local (the cloud metadata range)"},
	{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
	{netip.MustParsePrefix("255.255.255.255/32"), "broadcast"},
	{netip.MustParsePrefix("240.0.0.0/4"), "reserved (240.0.0.0/4)"},
}

// specialClass names a's special range, or "" for an ordinary address.
// The array is fixed and read-only, so it is not mutable global state.
func specialClass(a netip.Addr) string {
	for _, r := range specialRanges {
		if r.prefix.Contains(a) {
			return r.class
		}
	}
	return ""
}

// nameMayReach reports whether a name may lead to a: any ordinary
// address, and loopback for "localhost" only, which RFC 6761 fixes to the
// loopback (an entry "localhost:8080" is a model server on the host).
func nameMayReach(name string, a netip.Addr) bool {
	switch specialClass(a) {
	case "":
		return true
	case "loopback":
		return name == "localhost"
	}
	return false
}
