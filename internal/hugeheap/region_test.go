package hugeheap

import "testing"

func TestRegion(t *testing.T) {
	for _, tc := range []struct{ workers, want int }{
		{0, 64 << 20},
		{-3, 64 << 20},
		{2, 64<<20 + 2*192<<10},
		{1024, 256 << 20},
		{1 << 20, 1 << 30},
	} {
		if got := Region(tc.workers); got != tc.want {
			t.Errorf("Region(%d) = %d, want %d", tc.workers, got, tc.want)
		}
	}
}
