package reports

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Bounds of a --judge-labels file, which comes from people's tools and is
// read as untrusted input: past them it is refused, never read on.
const (
	MaxJudgeLabelsBytes = 64 << 20 // the whole file
	MaxJudgeLabelLine   = 64 << 10 // one line
	maxLabelErrors      = 20       // bad lines listed before "... and N more"
)

// judgeLabelHint shows a labels line; every line error ends with it.
const judgeLabelHint = `each line is one JSON object: {"case_id": "add-1", "scorer": "helpful", "label": "pass"}, ` +
	`"label" pass or fail, an optional "epoch" (1, 2, ...) for one epoch only`

// JudgeLabel is a person's verdict on one case of one judge scorer.
type JudgeLabel struct {
	CaseID string
	Scorer string
	Epoch  int32 // 0: every epoch of the case
	Pass   bool
	Line   int // its line in the file
}

// labelKey identifies a label: a second label with the same key is an error.
type labelKey struct {
	caseID, scorer string
	epoch          int32
}

// JudgeLabels is a --judge-labels file, read and checked. Lookup is safe
// for concurrent use; nothing changes it after ParseJudgeLabels.
type JudgeLabels struct {
	Name   string       // the file as given, in messages
	Labels []JudgeLabel // in file order
	byKey  map[labelKey]int
}

// ReadJudgeLabels reads the labels file at path (ParseJudgeLabels); a
// file that cannot be opened is E-IO-001 or E-IO-003.
func ReadJudgeLabels(path string) (*JudgeLabels, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, openErr(path, err)
	}
	defer f.Close()
	return ParseJudgeLabels(path, f)
}

// ParseJudgeLabels reads JSONL labels from r, name naming it in errors
// ("labels.jsonl:3: ..."). Blank lines are skipped and keys other than
// case_id, scorer, label and epoch ignored (a labelling tool's notes). Every
// bad line is reported, the first maxLabelErrors of them, with code
// E-EVL-009: a line that is not an object, a missing or blank case_id or
// scorer, a label not "pass" or "fail", an epoch not a positive integer,
// a second label for the same (case_id, scorer, epoch), a line past
// MaxJudgeLabelLine; a file past MaxJudgeLabelsBytes or without a label
// is refused whole.
func ParseJudgeLabels(name string, r io.Reader) (*JudgeLabels, error) {
	l := &JudgeLabels{Name: name, byKey: map[labelKey]int{}}
	sc := bufio.NewScanner(io.LimitReader(r, MaxJudgeLabelsBytes+1))
	sc.Buffer(make([]byte, 0, 4096), MaxJudgeLabelLine)
	var bad []error
	more, n, size := 0, 0, 0
	for sc.Scan() {
		n++
		size += len(sc.Bytes()) + 1
		line := sc.Bytes()
		if n == 1 {
			line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if err := l.add(line, n); err != nil {
			if len(bad) < maxLabelErrors {
				bad = append(bad, err.At(fmt.Sprintf("%s:%d", name, n)))
			} else {
				more++
			}
		}
	}
	switch err := sc.Err(); {
	case errors.Is(err, bufio.ErrTooLong):
		return nil, errcode.New(errcode.JudgeLabels, "line longer than %d KiB", MaxJudgeLabelLine>>10).At(fmt.Sprintf("%s:%d", name, n+1)).
			WithHint("%s", judgeLabelHint)
	case err != nil:
		return nil, errcode.Wrap(errcode.IO, err, "cannot read judge labels after line %d", n).At(name)
	case size > MaxJudgeLabelsBytes:
		return nil, errcode.New(errcode.JudgeLabels, "file larger than %d MiB", MaxJudgeLabelsBytes>>20).At(name).
			WithHint("split the labels, or label a sample of the cases: a few hundred labels measure a judge well")
	}
	if more > 0 {
		bad = append(bad, errcode.New(errcode.JudgeLabels, "... and %d more bad lines", more).At(name))
	}
	if len(bad) > 0 {
		return nil, errors.Join(bad...)
	}
	if len(l.Labels) == 0 {
		return nil, errcode.New(errcode.JudgeLabels, "no label in the file").At(name).WithHint("%s", judgeLabelHint)
	}
	return l, nil
}

// rawLabel is a labels line as JSON has it; pointers tell absent from
// empty.
type rawLabel struct {
	CaseID *string          `json:"case_id"`
	Scorer *string          `json:"scorer"`
	Label  *string          `json:"label"`
	Epoch  *json.RawMessage `json:"epoch"`
}

// add checks one non-blank line and keeps its label.
func (l *JudgeLabels) add(line []byte, n int) *errcode.Error {
	trimmed := bytes.TrimSpace(line)
	if len(trimmed) == 0 || trimmed[0] != '{' {
		return errcode.New(errcode.JudgeLabels, "line is not a JSON object").WithHint("%s", judgeLabelHint)
	}
	var raw rawLabel
	if err := json.Unmarshal(trimmed, &raw); err != nil {
		var typeErr *json.UnmarshalTypeError
		if errors.As(err, &typeErr) && typeErr.Field != "" {
			return errcode.New(errcode.JudgeLabels, "%q is a JSON %s, not a string", typeErr.Field, typeErr.Value).WithHint("%s", judgeLabelHint)
		}
		return errcode.Wrap(errcode.JudgeLabels, err, "invalid JSON").WithHint("%s", judgeLabelHint)
	}
	lab := JudgeLabel{Line: n}
	var err *errcode.Error
	if lab.CaseID, err = requiredString("case_id", raw.CaseID); err != nil {
		return err
	}
	if lab.Scorer, err = requiredString("scorer", raw.Scorer); err != nil {
		return err
	}
	if lab.Pass, err = labelValue(raw.Label); err != nil {
		return err
	}
	if lab.Epoch, err = labelEpoch(raw.Epoch); err != nil {
		return err
	}
	k := labelKey{lab.CaseID, lab.Scorer, lab.Epoch}
	if first, dup := l.byKey[k]; dup {
		which := "every epoch"
		if lab.Epoch > 0 {
			which = fmt.Sprintf("epoch %d", lab.Epoch)
		}
		return errcode.New(errcode.JudgeLabels, "a second label for case %q, scorer %q, %s (first on line %d)", lab.CaseID, lab.Scorer, which, l.Labels[first].Line).
			WithHint("keep one label per case and scorer (or per epoch, with \"epoch\"); where people disagree, settle it before calibrating")
	}
	l.byKey[k] = len(l.Labels)
	l.Labels = append(l.Labels, lab)
	return nil
}

func requiredString(field string, v *string) (string, *errcode.Error) {
	switch {
	case v == nil:
		return "", errcode.New(errcode.JudgeLabels, "missing %q", field).WithHint("%s", judgeLabelHint)
	case strings.TrimSpace(*v) == "":
		return "", errcode.New(errcode.JudgeLabels, "%q is blank", field).WithHint("%s", judgeLabelHint)
	}
	return *v, nil
}

func labelValue(v *string) (bool, *errcode.Error) {
	if v == nil {
		return false, errcode.New(errcode.JudgeLabels, `missing "label"`).WithHint("%s", judgeLabelHint)
	}
	switch *v {
	case ResultPass:
		return true, nil
	case ResultFail:
		return false, nil
	}
	return false, errcode.New(errcode.JudgeLabels, `"label" is %q, not "pass" or "fail"`, truncate(*v, 40)).WithHint("%s", judgeLabelHint)
}

// labelEpoch reads the optional epoch: absent or null is 0 (every epoch).
func labelEpoch(v *json.RawMessage) (int32, *errcode.Error) {
	if v == nil || string(*v) == "null" {
		return 0, nil
	}
	var e int64
	if json.Unmarshal(*v, &e) != nil || e < 1 || e > 1<<30 {
		return 0, errcode.New(errcode.JudgeLabels, `"epoch" is %s, not a positive integer`, truncate(string(*v), 40)).
			WithHint(`leave "epoch" out for a label that holds for every epoch of the case; %s`, judgeLabelHint)
	}
	return int32(e), nil
}

// Lookup returns people's verdict on a case's epoch for a scorer: the
// label for that epoch, else the case's label for every epoch.
func (l *JudgeLabels) Lookup(caseID, scorer string, epoch int32) (pass, ok bool) {
	if l == nil {
		return false, false
	}
	i, ok := l.byKey[labelKey{caseID, scorer, epoch}]
	if !ok {
		i, ok = l.byKey[labelKey{caseID, scorer, 0}]
	}
	if !ok {
		return false, false
	}
	return l.Labels[i].Pass, true
}
