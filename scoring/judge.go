package scoring

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// DefaultThreshold is the judge score from which an llm_judge scorer
// passes, unless the scorer sets its own.
const DefaultThreshold = 0.5

// Judge grades cases against criteria with a model: the llm_judge
// scorers. A Judge is shared by the run's cases and safe for concurrent
// use; ForCase gives the one case's judging, in scoring order (record and
// replay key a case's judge calls by their order).
type Judge interface {
	ForCase(ctx context.Context, in Input) (CaseJudge, error)
}

// CaseJudge judges one case, one scorer at a time.
type CaseJudge interface {
	// Judge scores the case against spec's criteria (spec.Expected) and
	// threshold. An error is the harness's: the judge could not be asked,
	// or its answer, repaired once, was still no verdict (E-EVL-091).
	Judge(ctx context.Context, spec ScorerSpec) (Score, error)
}

// parseRubric reads expected.rubric: a criterion, a non-empty list of
// them, or {"criteria": ..., "threshold": T}.
func parseRubric(v json.RawMessage) (*ScorerSpec, error) {
	spec := &ScorerSpec{Type: TypeLLMJudge, Name: TypeLLMJudge, Threshold: DefaultThreshold}
	if list, err := stringOrList(v); err == nil {
		spec.Expected = list
		return spec, checkCriteria(spec.Expected)
	}
	var o struct {
		Criteria  json.RawMessage `json:"criteria"`
		Threshold *float64        `json:"threshold"`
	}
	if err := strictObject(v, &o); err != nil || o.Criteria == nil {
		return nil, fmt.Errorf(`want a criterion, a list of criteria, or {"criteria": ..., "threshold": 0.5}`)
	}
	list, err := stringOrList(o.Criteria)
	if err != nil {
		return nil, fmt.Errorf("criteria: %v", err)
	}
	spec.Expected = list
	if o.Threshold != nil {
		if err := CheckThreshold(*o.Threshold); err != nil {
			return nil, err
		}
		spec.Threshold = *o.Threshold
	}
	return spec, checkCriteria(spec.Expected)
}

// checkCriteria refuses a blank criterion: a judge asked to check nothing
// passes anything.
func checkCriteria(list []string) error {
	for i, c := range list {
		if strings.TrimSpace(c) == "" {
			return fmt.Errorf("criterion %d is blank", i+1)
		}
	}
	return nil
}

// CheckThreshold checks a judge threshold is a number in [0, 1].
func CheckThreshold(t float64) error {
	if math.IsNaN(t) || t < 0 || t > 1 {
		return fmt.Errorf("threshold %g: want a number from 0 to 1", t)
	}
	return nil
}

// strictObject decodes a JSON object into v, refusing unknown keys.
func strictObject(raw json.RawMessage, v any) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		return fmt.Errorf("not an object")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	return dec.Decode(v)
}
