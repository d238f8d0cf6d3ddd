// Package egress is the host side of the subprocess egress proxy: it serves
// the TCP listeners and the UDP resolver socket that the launcher bound
// inside a call's network namespace, and forwards from the host's
// namespace only what the capsule's capabilities.network.allow admits.
//
// The namespace (built by package sandbox) has one route, `local default
// dev lo`, so every IPv4 destination a tool dials is an address of the
// namespace: a connect to a port the allow list implies lands on one of
// the listeners handed to Serve, and the accepted socket's local address is
// the destination the tool asked for. A connect to any other port is
// refused by the kernel, and a datagram to any port but 53 goes nowhere.
//
// A destination is forwarded when its address was handed out by this
// policy's resolver for an allowed name (or is an allowed name's address
// found by the policy's own lookup) and the name's rule admits the port,
// or when an entry names the address itself. Addresses of special ranges
// (loopback, link-local with the cloud metadata address, multicast,
// broadcast, "this network", reserved) are refused when reached through a
// name, so a name that resolves to them cannot open the host's own
// services. The resolver answers A queries for allowed names only and
// never passes a query upstream as it came. Nothing is decrypted or
// parsed above TCP. RATIONALE.md ("Why does the egress proxy decide by the
// name it handed an address out for, and refuse some addresses every name
// leads to?") has the reasons.
package egress
