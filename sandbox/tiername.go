package sandbox

// MurmurTierName is murmur's wire name (containment.rs
// enforcement_tier_name) for the enforcement tier murmur-eval achieved:
// Landlock and seccomp on the shell and native tools is murmur's
// "landlock+seccomp" tier (murmur-eval's user and network namespaces come
// on top; session_start names them in enforcement_mechanism). murmur-eval
// never builds "mountns+pivot_root+landlock+seccomp" and has no
// "seccomp-only" tier; anything else is "none".
func MurmurTierName(tier string) string {
	if tier == TierLandlock {
		return "landlock+seccomp"
	}
	return TierNone
}
