package suggest

import "testing"

func TestClosest(t *testing.T) {
	known := []string{"artifacts", "capabilities", "inference", "name", "version", "max_turns", "max_tokens", "result_equals", "result_contains", "report", "run", "show"}
	for _, tc := range []struct{ word, want string }{
		{"artifact", "artifacts"},
		{"max_turn", "max_turns"},
		{"max_tokns", "max_tokens"},
		{"inferance", "inference"},
		{"result_equal", "result_equals"},
		{"reslut_contains", "result_contains"}, // a transposition
		{"Name", "name"},
		{"nmae", "name"},
		{"raport", "report"},
		{"shwo", "show"},
		{"zzz", ""},
		{"colour", ""},
		{"completely_unrelated", ""},
		{"name", ""}, // known words are not suggested for themselves
	} {
		if got := Closest(tc.word, known); got != tc.want {
			t.Errorf("Closest(%q) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

func TestDistance(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{{"", "", 0}, {"a", "", 1}, {"", "ab", 2}, {"kitten", "sitting", 3}, {"ab", "ba", 1}, {"abc", "abc", 0}} {
		if got := distance(tc.a, tc.b); got != tc.want {
			t.Errorf("distance(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// FuzzClosest: any word against any known list returns "" or one of the
// known words other than the word itself, within the distance limit.
func FuzzClosest(f *testing.F) {
	f.Add("artifact", "artifacts")
	f.Add("", "")
	f.Add("ab", "ba")
	f.Fuzz(func(t *testing.T, word, known string) {
		got := Closest(word, []string{known, "name"})
		switch got {
		case "":
		case known, "name":
			if got == word {
				t.Fatalf("suggested %q for itself", got)
			}
		default:
			t.Fatalf("Closest(%q) = %q, not a known word", word, got)
		}
	})
}
