package workspace

import (
	"fmt"
	"strconv"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Limits bound what a workspace may hold. They hold for folders and
// archives alike, on what is unpacked (not the compressed size).
type Limits struct {
	MaxEntries    int   // files, folders and links
	MaxBytes      int64 // the sum of the files' sizes
	MaxEntryBytes int64 // one file's size
}

// DefaultLimits returns the limits unless MURMUR_EVAL_WORKSPACE_LIMITS says
// otherwise: 200,000 entries, 8 GiB in all, 2 GiB a file.
func DefaultLimits() Limits {
	return Limits{MaxEntries: 200_000, MaxBytes: 8 << 30, MaxEntryBytes: 2 << 30}
}

// LimitsEnv overrides DefaultLimits: "entries,bytes,entry_bytes", each a
// positive integer.
const LimitsEnv = "MURMUR_EVAL_WORKSPACE_LIMITS"

// ParseLimits reads LimitsEnv's value; "" is DefaultLimits.
func ParseLimits(v string) (Limits, error) {
	if v == "" {
		return DefaultLimits(), nil
	}
	var n [3]int64
	parts := splitComma(v)
	if len(parts) != 3 {
		return Limits{}, errcode.New(errcode.Usage, "%s=%q: want entries,bytes,entry_bytes", LimitsEnv, v)
	}
	for i, p := range parts {
		x, err := strconv.ParseInt(p, 10, 64)
		if err != nil || x <= 0 {
			return Limits{}, errcode.New(errcode.Usage, "%s=%q: %q is not a positive integer", LimitsEnv, v, p)
		}
		n[i] = x
	}
	return Limits{MaxEntries: int(n[0]), MaxBytes: n[1], MaxEntryBytes: n[2]}, nil
}

func splitComma(s string) []string {
	var out []string
	start := 0
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ',' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return out
}

// counter enforces Limits while a workspace is read.
type counter struct {
	lim     Limits
	entries int
	bytes   int64
}

// entry counts one entry of size bytes (0 for folders and links).
func (c *counter) entry(name string, size int64) error {
	c.entries++
	if c.entries > c.lim.MaxEntries {
		return limitErr("more than %d entries", c.lim.MaxEntries)
	}
	if size < 0 || size > c.lim.MaxEntryBytes {
		return limitErr("%s: %d bytes, more than the %d a file may hold", name, size, c.lim.MaxEntryBytes)
	}
	c.bytes += size
	if c.bytes > c.lim.MaxBytes {
		return limitErr("more than %d bytes in all", c.lim.MaxBytes)
	}
	return nil
}

func limitErr(format string, args ...any) *errcode.Error {
	return errcode.New(errcode.WorkspaceLimit, "workspace past its limits: %s", fmt.Sprintf(format, args...)).
		WithHint("raise the limits with %s=entries,bytes,entry_bytes if you trust this workspace", LimitsEnv)
}
