package sandbox

import (
	"encoding/binary"
	"fmt"
	"net"

	"golang.org/x/sys/unix"
)

// netSpec is the launcher's half of a proxied call's network: the TCP
// ports the egress proxy serves and whether it answers DNS. The launcher,
// inside the call's new network namespace and still holding CAP_NET_ADMIN
// and CAP_NET_BIND_SERVICE there, brings the loopback up, makes every IPv4
// address local to it, binds the listeners and hands them to the parent.
type netSpec struct {
	Ports []int `json:"ports"`
	DNS   bool  `json:"dns"`
}

// dnsPort is where the namespace's resolver listens: libc, which cannot
// read /etc/resolv.conf under Landlock, asks 127.0.0.1:53, and with the
// local route any other nameserver address lands here too.
const dnsPort = 53

// setupNetns configures the launcher's network namespace and returns the
// bound sockets: one TCP listener per port, in order, then the UDP socket
// on :53 when spec.DNS. On error nothing is left open.
//
// The route `local 0.0.0.0/0 dev lo` in the local table makes every IPv4
// destination an address of this namespace, so a connect to any host
// either reaches one of the proxy's listeners (whose accepted socket's
// local address is the destination the tool asked for) or is refused at
// once (ECONNREFUSED); a datagram to any address is delivered here and
// goes nowhere else. There is no other interface and no other route.
func setupNetns(spec netSpec) (fds []int, err error) {
	if err := loopbackUp(); err != nil {
		return nil, fmt.Errorf("bring the loopback up: %w", err)
	}
	lo, err := net.InterfaceByName("lo")
	if err != nil {
		return nil, fmt.Errorf("find the loopback: %w", err)
	}
	if err := rtnetlink(localRouteRequest(lo.Index)); err != nil {
		return nil, fmt.Errorf("add the local default route: %w", err)
	}
	defer func() {
		if err != nil {
			for _, fd := range fds {
				_ = unix.Close(fd)
			}
			fds = nil
		}
	}()
	for _, port := range spec.Ports {
		fd, err := bindInet(unix.SOCK_STREAM, port)
		if err != nil {
			return fds, fmt.Errorf("listen on port %d: %w", port, err)
		}
		fds = append(fds, fd)
		if err := unix.Listen(fd, 128); err != nil {
			return fds, fmt.Errorf("listen on port %d: %w", port, err)
		}
	}
	if spec.DNS {
		fd, err := bindInet(unix.SOCK_DGRAM, dnsPort)
		if err != nil {
			return fds, fmt.Errorf("bind the resolver on port %d: %w", dnsPort, err)
		}
		fds = append(fds, fd)
	}
	return fds, nil
}

// bindInet is a close-on-exec IPv4 socket of typ bound to 0.0.0.0:port.
func bindInet(typ, port int) (int, error) {
	fd, err := unix.Socket(unix.AF_INET, typ|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return -1, err
	}
	if err := unix.SetsockoptInt(fd, unix.SOL_SOCKET, unix.SO_REUSEADDR, 1); err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	if err := unix.Bind(fd, &unix.SockaddrInet4{Port: port}); err != nil {
		_ = unix.Close(fd)
		return -1, err
	}
	return fd, nil
}

// loopbackUp sets IFF_UP on lo.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// rtnetlink sends one request and reads its acknowledgement.
func rtnetlink(req []byte) error {
	fd, err := unix.Socket(unix.AF_NETLINK, unix.SOCK_RAW|unix.SOCK_CLOEXEC, unix.NETLINK_ROUTE)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Bind(fd, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	if err := unix.Sendto(fd, req, 0, &unix.SockaddrNetlink{Family: unix.AF_NETLINK}); err != nil {
		return err
	}
	buf := make([]byte, 4096)
	n, _, err := unix.Recvfrom(fd, buf, 0)
	if err != nil {
		return err
	}
	return netlinkAck(buf[:n])
}

// localRouteRequest is the RTM_NEWROUTE message: an nlmsghdr, an rtmsg
// and one RTA_OIF attribute, in host byte order as rtnetlink wants.
func localRouteRequest(ifindex int) []byte {
	const rtmsgLen = unix.SizeofRtMsg
	attrLen := unix.SizeofRtAttr + 4
	total := unix.SizeofNlMsghdr + rtmsgLen + attrLen
	b := make([]byte, total)
	ne := binary.NativeEndian
	ne.PutUint32(b[0:], uint32(total))
	ne.PutUint16(b[4:], unix.RTM_NEWROUTE)
	ne.PutUint16(b[6:], unix.NLM_F_REQUEST|unix.NLM_F_ACK|unix.NLM_F_CREATE|unix.NLM_F_EXCL)
	ne.PutUint32(b[8:], 1) // sequence
	r := b[unix.SizeofNlMsghdr:]
	r[0] = unix.AF_INET        // family
	r[1] = 0                   // destination prefix length: 0.0.0.0/0
	r[4] = unix.RT_TABLE_LOCAL // table
	r[5] = unix.RTPROT_BOOT    // protocol
	r[6] = unix.RT_SCOPE_HOST  // scope
	r[7] = unix.RTN_LOCAL      // type
	a := r[rtmsgLen:]
	ne.PutUint16(a[0:], uint16(attrLen))
	ne.PutUint16(a[2:], unix.RTA_OIF)
	ne.PutUint32(a[4:], uint32(ifindex))
	return b
}

// netlinkAck is the error an NLMSG_ERROR acknowledgement carries (nil for
// error 0).
func netlinkAck(b []byte) error {
	if len(b) < unix.SizeofNlMsghdr+4 {
		return fmt.Errorf("short netlink answer (%d bytes)", len(b))
	}
	ne := binary.NativeEndian
	if typ := ne.Uint16(b[4:]); typ != unix.NLMSG_ERROR {
		return fmt.Errorf("unexpected netlink answer type %d", typ)
	}
	if errno := int32(ne.Uint32(b[unix.SizeofNlMsghdr:])); errno != 0 {
		return unix.Errno(-errno)
	}
	return nil
}

// dropCapabilities clears the calling thread's capability sets, ambient
// included, so nothing the launcher held for the namespace set-up reaches
// the tool. The exec that follows happens on this thread.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient capabilities: %w", err)
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("clear capabilities: %w", err)
	}
	return nil
}
