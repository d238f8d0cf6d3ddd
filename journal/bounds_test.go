package journal

import (
	"encoding/json"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

const (
	sesA = "ses_019aee0c5f6a7b3c8d9e0f1a2b3c4d5e"
	sesB = "ses_019aee0c5f6a7b3c8d9e0f1a2b3c4d5f"
)

// testBounds is a run of the cases a, b and c, two epochs, --retries 1.
var testBounds = Bounds{HasCase: func(id string) bool { return id == "a" || id == "b" || id == "c" }, Epochs: 2, Attempts: 2}

// attemptOf is the rows of one good attempt of case a, epoch 1.
func attemptOf(n int, ses string) AttemptRows {
	r := Row{CaseID: "a", Epoch: 1, Attempt: n, SessionID: ses, SessionDir: "sessions/" + ses}
	o := r
	o.SessionDir = ""
	return AttemptRows{Result: r, Others: []Row{o, o}}
}

func TestBoundsCheck(t *testing.T) {
	good := Entry{CaseID: "a", Epoch: 1, Attempt: 1}
	for _, tc := range []struct {
		name     string
		entry    Entry
		attempts []AttemptRows
		want     string // a part of the error; "" for none
	}{
		{"good", good, []AttemptRows{attemptOf(1, sesA)}, ""},
		{"retried", Entry{CaseID: "a", Epoch: 1, Attempt: 2}, []AttemptRows{attemptOf(1, sesA), attemptOf(2, sesB)}, ""},
		{"merged folder", good, []AttemptRows{{Result: Row{CaseID: "a", Epoch: 1, Attempt: 1, SessionID: sesA, SessionDir: "../shard-0/sessions/" + sesA}}}, ""},
		{"unknown case", Entry{CaseID: "ghost", Epoch: 1, Attempt: 1}, nil, `case_id "ghost": not a case of the run's selection`},
		{"epoch -1", Entry{CaseID: "a", Epoch: -1, Attempt: 1}, nil, "epoch -1: outside the run's epochs 1..2"},
		{"epoch 0", Entry{CaseID: "a", Epoch: 0, Attempt: 1}, nil, "epoch 0: outside"},
		{"epoch past the run's", Entry{CaseID: "a", Epoch: 3, Attempt: 1}, nil, "epoch 3: outside"},
		{"attempt 0", Entry{CaseID: "a", Epoch: 1, Attempt: 0}, nil, "attempt 0: outside the run's attempts 1..2 (--retries 1)"},
		{"attempt past the retries", Entry{CaseID: "a", Epoch: 1, Attempt: 3}, nil, "attempt 3: outside"},
		{"no attempt", good, nil, "record: holds no attempt"},
		{"row of another case", good, func() []AttemptRows {
			a := attemptOf(1, sesA)
			a.Result.CaseID = "b"
			return []AttemptRows{a}
		}(), `record attempt 1: case_id "b": not the line's case "a"`},
		{"row of another epoch", good, func() []AttemptRows {
			a := attemptOf(1, sesA)
			a.Result.Epoch = 2
			return []AttemptRows{a}
		}(), "record attempt 1: epoch 2: not the line's epoch 1"},
		{"row attempt past the retries", Entry{CaseID: "a", Epoch: 1, Attempt: 2}, []AttemptRows{attemptOf(1, sesA), attemptOf(3, sesB)}, "record attempt 2: attempt 3: outside"},
		{"attempts out of order", Entry{CaseID: "a", Epoch: 1, Attempt: 1}, []AttemptRows{attemptOf(2, sesB), attemptOf(1, sesA)}, "record attempt 2: attempt 1: not after attempt 2"},
		{"last attempt not the line's", Entry{CaseID: "a", Epoch: 1, Attempt: 2}, []AttemptRows{attemptOf(1, sesA)}, "attempt 2: the record's last attempt is 1"},
		{"session id ../x", good, []AttemptRows{{Result: Row{CaseID: "a", Epoch: 1, Attempt: 1, SessionID: "../x", SessionDir: "sessions/../x"}}},
			`record attempt 1: session_id "../x": not one path element (holds a separator)`},
		{"session id ..", good, []AttemptRows{{Result: Row{CaseID: "a", Epoch: 1, Attempt: 1, SessionID: "..", SessionDir: "sessions/.."}}}, "not one path element (..)"},
		{"session id empty", good, []AttemptRows{{Result: Row{CaseID: "a", Epoch: 1, Attempt: 1, SessionDir: "sessions/"}}}, `session_id "": empty`},
		{"session id with NUL", good, []AttemptRows{{Result: Row{CaseID: "a", Epoch: 1, Attempt: 1, SessionID: sesA + "\x00", SessionDir: "sessions/" + sesA}}}, "holds a NUL byte"},
		{"session id not ours", good, []AttemptRows{{Result: Row{CaseID: "a", Epoch: 1, Attempt: 1, SessionID: "x", SessionDir: "sessions/x"}}}, "not a session id (ses_ and 32 lowercase hex digits)"},
		{"session id upper-case", good, []AttemptRows{{Result: Row{CaseID: "a", Epoch: 1, Attempt: 1, SessionID: strings.ToUpper(sesA), SessionDir: "sessions/" + strings.ToUpper(sesA)}}}, "not a session id"},
		{"session folder elsewhere", good, []AttemptRows{{Result: Row{CaseID: "a", Epoch: 1, Attempt: 1, SessionID: sesA, SessionDir: "../../etc/" + sesA}}},
			`session_dir "../../etc/` + sesA + `": not the folder of session`},
		{"session folder of another session", good, []AttemptRows{{Result: Row{CaseID: "a", Epoch: 1, Attempt: 1, SessionID: sesA, SessionDir: "sessions/" + sesB}}}, "not the folder of session"},
		{"session folder the run folder", good, []AttemptRows{{Result: Row{CaseID: "a", Epoch: 1, Attempt: 1, SessionID: sesA, SessionDir: ""}}}, "not the folder of session"},
		{"event row of another session", good, func() []AttemptRows {
			a := attemptOf(1, sesA)
			a.Others[1].SessionID = sesB
			return []AttemptRows{a}
		}(), "record attempt 1: row 2: of case \"a\" epoch 1 attempt 1 session \"" + sesB + "\", not its attempt's"},
		{"score row of another case", good, func() []AttemptRows {
			a := attemptOf(1, sesA)
			a.Others[0].CaseID = "ghost"
			return []AttemptRows{a}
		}(), `row 1: of case "ghost"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := testBounds.Check(tc.entry, tc.attempts)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Check = %v, want nil", err)
			case tc.want != "" && err == nil:
				t.Errorf("Check = nil, want an error with %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Errorf("Check = %q, want it to hold %q", err, tc.want)
			}
		})
	}
}

// fuzzRecord is a record as the run command writes it, as far as Check's
// caller reads it.
type fuzzRecord struct {
	Attempts []struct {
		Result struct {
			CaseID     string
			Epoch      int
			Attempt    int
			SessionID  string
			SessionDir string
		}
		Scores []struct {
			CaseID    string
			Epoch     int
			Attempt   int
			SessionID string
		}
	}
}

// fuzzCheck decodes an entry's record as fuzzRecord and checks it.
func fuzzCheck(e Entry) error {
	var r fuzzRecord
	if err := json.Unmarshal(e.Record, &r); err != nil {
		return err
	}
	as := make([]AttemptRows, len(r.Attempts))
	for i, a := range r.Attempts {
		as[i].Result = Row(a.Result)
		for _, s := range a.Scores {
			as[i].Others = append(as[i].Others, Row{CaseID: s.CaseID, Epoch: s.Epoch, Attempt: s.Attempt, SessionID: s.SessionID})
		}
	}
	return testBounds.Check(e, as)
}

// FuzzBoundsCheck: whatever a journal holds, every line read with Check
// as its test is of the run's cases, epochs and attempts, and every
// session it names is one plain path element inside a sessions folder.
func FuzzBoundsCheck(f *testing.F) {
	good := `{"case_id":"a","epoch":1,"attempt":1,"record":{"Attempts":[{"Result":{"CaseID":"a","Epoch":1,"Attempt":1,"SessionID":"` + sesA + `","SessionDir":"sessions/` + sesA + `"}}]}}`
	f.Add([]byte(good + "\n"))
	f.Add([]byte(strings.ReplaceAll(good, `"a"`, `"ghost"`) + "\n"))
	f.Add([]byte(strings.ReplaceAll(good, `"epoch":1`, `"epoch":-1`) + "\n"))
	f.Add([]byte(strings.ReplaceAll(good, sesA, "../x") + "\n"))
	f.Add([]byte(strings.ReplaceAll(good, sesA, `ses_\u0000`) + "\n" + good))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "j")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Read(p, fuzzCheck)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range c.Entries {
			if !testBounds.HasCase(e.CaseID) || e.Epoch < 1 || e.Epoch > testBounds.Epochs || e.Attempt < 1 || e.Attempt > testBounds.Attempts {
				t.Fatalf("line %d accepted: case %q epoch %d attempt %d", e.Line, e.CaseID, e.Epoch, e.Attempt)
			}
			var r fuzzRecord
			if err := json.Unmarshal(e.Record, &r); err != nil || len(r.Attempts) == 0 {
				t.Fatalf("line %d accepted with a record that does not decode: %v", e.Line, err)
			}
			for _, a := range r.Attempts {
				id, dir := a.Result.SessionID, a.Result.SessionDir
				if id == "" || id == "." || id == ".." || strings.ContainsAny(id, "/\\\x00") || path.Base(dir) != id || path.Base(path.Dir(dir)) != "sessions" {
					t.Fatalf("line %d accepted with session %q in %q", e.Line, id, dir)
				}
				if a.Result.CaseID != e.CaseID || a.Result.Epoch != e.Epoch {
					t.Fatalf("line %d accepted with a row of case %q epoch %d", e.Line, a.Result.CaseID, a.Result.Epoch)
				}
			}
		}
	})
}
