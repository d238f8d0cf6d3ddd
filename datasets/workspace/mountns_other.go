//go:build !linux

package workspace

import "errors"

// MountNSEnv marks a process that EnterPrivateMountNS re-executed.
const MountNSEnv = "MURMUR_EVAL_MOUNTNS"

// EnterPrivateMountNS: mount namespaces are Linux's; never re-executes.
func EnterPrivateMountNS(_, _ []string) error {
	return errors.New("no mount namespaces on this system")
}

// InPrivateMountNS is always false off Linux.
func InPrivateMountNS(string) bool { return false }
