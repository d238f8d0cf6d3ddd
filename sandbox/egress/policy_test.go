package egress

import (
	"context"
	"net/netip"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/murmur-nexus/murmur-eval/capsule"
	"github.com/murmur-nexus/murmur-eval/errcode"
	"golang.org/x/net/dns/dnsmessage"
)

func TestPorts(t *testing.T) {
	many := make([]string, 0, 20)
	for i := range 20 {
		many = append(many, "api.example.com:"+strconv.Itoa(9000+i))
	}
	tests := []struct {
		name        string
		entries     []string
		want, wantD []int
	}{
		{"none", nil, nil, nil},
		{"a bare host is both scheme defaults", []string{"api.example.com"}, []int{80, 443}, nil},
		{"host:80 is any port (murmur's quirk)", []string{"api.example.com:80"}, []int{80, 443}, nil},
		{"https", []string{"https://api.example.com"}, []int{443}, nil},
		{"http", []string{"http://api.example.com"}, []int{80}, nil},
		{"explicit ports, sorted and once", []string{"b.example.com:8443", "https://a.example.com:8443", "c.example.com:22", "https://d.example.com"}, []int{22, 443, 8443}, nil},
		{"a literal IP", []string{"203.0.113.7:5432"}, []int{5432}, nil},
		{"port 0 gets no listener", []string{"api.example.com:0"}, nil, nil},
		{"past 16 the highest are dropped", many, []int{9000, 9001, 9002, 9003, 9004, 9005, 9006, 9007, 9008, 9009, 9010, 9011, 9012, 9013, 9014, 9015}, []int{9016, 9017, 9018, 9019}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := newPolicy(t, nil, nil, tt.entries...)
			if diff := cmp.Diff(tt.want, p.Ports()); diff != "" {
				t.Errorf("Ports() (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantD, p.Dropped()); diff != "" {
				t.Errorf("Dropped() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestNewPolicyRefusesAHandBuiltRuleItCannotServe(t *testing.T) {
	for _, r := range []capsule.AllowRule{{Host: "", Port: 443}, {Host: "a.example.com", Port: 70000}, {Host: "a.example.com", Port: -2}} {
		_, err := NewPolicy([]capsule.AllowRule{r}, Options{})
		if got := errcode.Code(err); got != errcode.CapNetworkEntry {
			t.Errorf("NewPolicy(%+v): got code %q (%v), want %s", r, got, err, errcode.CapNetworkEntry)
		}
	}
}

// TestDecide is the connection decision: what a tool reaches, by the
// address it dialled and how that address was learnt.
func TestDecide(t *testing.T) {
	upstream := &fakeDNS{names: map[string][]string{
		"api.example.com":    {"203.0.113.7"},
		"pinned.example.com": {"203.0.113.8"},
		"tls.example.com":    {"203.0.113.9"},
		"rebind.example.com": {"169.254.169.254"},
		"loop.example.com":   {"127.0.0.1"},
		"localhost":          {"127.0.0.1"},
		"mcast.example.com":  {"224.0.0.251"},
		"cgnat.example.com":  {"100.64.0.9"},
	}}
	entries := []string{
		"api.example.com", "pinned.example.com:8443", "https://tls.example.com",
		"rebind.example.com", "loop.example.com", "localhost:11434", "mcast.example.com", "cgnat.example.com",
		"198.51.100.4:5432", "198.51.100.5", "169.254.170.2",
	}
	tests := []struct {
		dst    string
		viaDNS string // the name the tool resolved through the namespace first ("" for none)
		ok     bool
		reason string // a part of the refusal's reason
	}{
		{"203.0.113.7:443", "api.example.com", true, ""},
		{"203.0.113.7:80", "api.example.com", true, ""},
		{"203.0.113.7:8443", "api.example.com", true, ""}, // a bare host is any port it is listened on
		{"203.0.113.7:443", "", true, ""},                 // the launch-time set
		{"203.0.113.8:8443", "pinned.example.com", true, ""},
		{"203.0.113.8:443", "pinned.example.com", false, "does not allow port 443 for pinned.example.com"},
		{"203.0.113.9:443", "", true, ""},
		{"203.0.113.9:80", "", false, "does not allow port 80 for tls.example.com"},
		{"198.51.100.4:5432", "", true, ""},
		{"198.51.100.4:443", "", false, "names 198.51.100.4, but not port 443"},
		{"198.51.100.5:22", "", true, ""},
		{"198.51.100.6:443", "", false, "no network.allow entry names 198.51.100.6"},
		{"1.1.1.1:443", "", false, "no network.allow entry names 1.1.1.1"},
		{"100.64.0.9:443", "cgnat.example.com", true, ""}, // private ranges are ordinary
		// special ranges: a name never leads there, only an entry naming the address
		{"169.254.169.254:80", "", false, "169.254.169.254 (from rebind.example.com) is link-local"},
		{"169.254.169.254:80", "rebind.example.com", false, "is link-local"},
		{"169.254.170.2:80", "", true, ""},
		{"127.0.0.1:443", "loop.example.com", false, "is loopback"},
		{"127.0.0.1:11434", "", true, ""}, // "localhost:11434"
		{"127.0.0.1:80", "", false, ""},
		{"224.0.0.251:443", "", false, "is multicast"},
		{"0.0.0.0:443", "", false, "no network.allow entry names 0.0.0.0"},
		{"[2001:db8::1]:443", "", false, "only IPv4"},
		{"[::ffff:203.0.113.7]:443", "", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.dst+"/"+tt.viaDNS, func(t *testing.T) {
			p := newPolicy(t, upstream, nil, entries...)
			if tt.viaDNS != "" {
				p.answer(context.Background(), query(t, tt.viaDNS+".", dnsmessage.TypeA))
			}
			ok, why := p.decide(context.Background(), netip.MustParseAddrPort(tt.dst))
			if ok != tt.ok || !strings.Contains(why, tt.reason) {
				t.Errorf("decide(%s): got %v %q, want %v and a reason with %q", tt.dst, ok, why, tt.ok, tt.reason)
			}
		})
	}
}

// TestLaunchTimeLookupsAreCached: a refused or unbound destination looks
// the allowed names up once a TTL, not once a connection.
func TestLaunchTimeLookupsAreCached(t *testing.T) {
	upstream := &fakeDNS{names: map[string][]string{"api.example.com": {"203.0.113.7"}}}
	p := newPolicy(t, upstream, nil, "api.example.com", "missing.example.com")
	for range 5 {
		p.decide(context.Background(), netip.MustParseAddrPort("1.1.1.1:443"))
		p.decide(context.Background(), netip.MustParseAddrPort("203.0.113.7:443"))
	}
	if got := upstream.lookups.Load(); got != 2 {
		t.Errorf("got %d upstream lookups, want 2 (one per allowed name)", got)
	}
}
