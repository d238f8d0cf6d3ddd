package capsule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// Observability is the manifest's observability block (§1.7).
type Observability struct {
	OTelEndpoint string // trimmed; "" when absent. Not URL-checked.
	Eval         *Eval  // nil when absent
}

// Eval is observability.eval: the scorers the eval hook runs. mur eval run
// passes it to hooks as MURMUR_EVAL_CONFIG (see JSON).
type Eval struct {
	DatasetID string   // "" when absent
	Scorers   []Scorer // the known types, in manifest order
	// Skipped are the entries of a type murmur does not know, which it
	// drops with a warning (SkippedScorer.String), in manifest order.
	Skipped []SkippedScorer
}

// SkippedScorer is an observability.eval.scorers entry of an unknown type:
// murmur skips it, so the scorer the user wrote is not applied.
type SkippedScorer struct {
	Where string // file:line:col of its type
	Type  string
}

// String is murmur's warning, after the place: "murmur.yaml:40:15: unknown
// scorer type 'rouge' — skipping".
func (s SkippedScorer) String() string {
	return fmt.Sprintf("%s: unknown scorer type '%s' — skipping", s.Where, s.Type)
}

// ScorerType names a scorer.
type ScorerType string

// The scorer types murmur knows; any other type is skipped with a warning.
const (
	ScorerExitOK       ScorerType = "exit_ok"
	ScorerMaxTurns     ScorerType = "max_turns"
	ScorerMaxTokens    ScorerType = "max_tokens"
	ScorerToolSequence ScorerType = "tool_sequence"
	ScorerLLMJudge     ScorerType = "llm_judge" // parses, scores nothing
)

// Scorer is one observability.eval.scorers entry with defaults applied.
type Scorer struct {
	Type ScorerType
	Name string // default: the type
	// Max is the limit of max_turns (default 10, narrowed to 32 bits as
	// murmur's `as u32` does) and max_tokens (default 100000); 0 otherwise.
	Max uint64
	// Expected is tool_sequence's expected tool names (default empty), or
	// llm_judge's criteria (murmur parses them and keeps none); nil for
	// the other types.
	Expected []string
	// Threshold is llm_judge's passing score, murmur-eval's key (murmur
	// ignores it); nil when absent.
	Threshold *float64
}

type rawObservability struct {
	otelEndpoint scalar
	eval         *rawEval
}

type rawEval struct {
	datasetID scalar
	scorers   []rawScorer
}

type rawScorer struct {
	typ, name scalar
	max       optUint
	expected  []string
	threshold optFloat
}

func decodeObservability(errs *fieldErrs, m *mapping) *rawObservability {
	o := errs.child(m, "observability")
	if o == nil {
		return nil
	}
	r := &rawObservability{otelEndpoint: errs.str(o, "otel_endpoint")}
	e := errs.child(o, "eval")
	if e == nil {
		return r
	}
	r.eval = &rawEval{datasetID: errs.str(e, "dataset_id")}
	for i, item := range errs.seq(e, "scorers") {
		field := fmt.Sprintf("%s.scorers[%d]", e.field, i)
		s, err := m.d.mapping(item, field, "struct RawScorerConfig")
		if errs.add(err) {
			break
		}
		sc := rawScorer{typ: errs.str(s, "type"), name: errs.str(s, "name"),
			max: errs.uint(s, "max", 64, "u64"), expected: errs.strs(s, "expected"), threshold: errs.float32(s, "threshold")}
		if errs.first == nil && sc.typ.node == nil {
			// type is a required String in murmur's raw struct.
			if v, present := s.raw("type"); present {
				errs.add(m.d.shape(v, field+".type", "invalid type: unit value, expected a string"))
			} else {
				errs.add(m.d.shape(s.node, field, "missing field `type`"))
			}
		}
		r.eval.scorers = append(r.eval.scorers, sc)
	}
	return r
}

// lowerObservability applies the defaults; an unknown scorer type is not an
// error in murmur, only a warning, and the scorer is dropped (Eval.Skipped).
func lowerObservability(d *decoder, r *rawObservability) Observability {
	var o Observability
	if r == nil {
		return o
	}
	o.OTelEndpoint = r.otelEndpoint.trimmed()
	if r.eval == nil {
		return o
	}
	o.Eval = &Eval{DatasetID: r.eval.datasetID.text, Scorers: []Scorer{}}
	for _, rs := range r.eval.scorers {
		s := Scorer{Type: ScorerType(rs.typ.text), Name: rs.typ.text}
		if rs.name.node != nil {
			s.Name = rs.name.text
		}
		switch s.Type {
		case ScorerExitOK:
		case ScorerLLMJudge:
			s.Expected = rs.expected
			if rs.threshold.node != nil {
				t := threshold(rs.threshold)
				s.Threshold = &t
			}
		case ScorerMaxTurns:
			s.Max = uint64(uint32(orDefault(rs.max, 10)))
		case ScorerMaxTokens:
			s.Max = orDefault(rs.max, 100000)
		case ScorerToolSequence:
			s.Expected = rs.expected
			if s.Expected == nil {
				s.Expected = []string{}
			}
		default:
			o.Eval.Skipped = append(o.Eval.Skipped, SkippedScorer{Where: d.where(rs.typ.node), Type: rs.typ.text})
			continue
		}
		o.Eval.Scorers = append(o.Eval.Scorers, s)
	}
	return o
}

// checkThresholds refuses an llm_judge threshold outside [0, 1]: a
// murmur-eval key murmur ignores, so this is murmur-eval's rule.
func checkThresholds(d *decoder, r *rawObservability) error {
	if r == nil || r.eval == nil {
		return nil
	}
	for _, rs := range r.eval.scorers {
		if rs.threshold.node == nil {
			continue
		}
		if ScorerType(rs.typ.text) != ScorerLLMJudge {
			return errcode.New(errcode.ManifestInvalid, "threshold is an llm_judge scorer's key, not %s's", rs.typ.text).
				At(d.where(rs.threshold.node)).WithHint("remove it: only a judge's score is compared with a threshold")
		}
		if t := threshold(rs.threshold); !(t >= 0 && t <= 1) {
			return errcode.New(errcode.ManifestInvalid, "llm_judge threshold %s: want a number from 0 to 1", rs.threshold.node.Value).
				At(d.where(rs.threshold.node)).WithHint("a judge's score is in [0, 1]; the scorer passes from its threshold (default 0.5)")
		}
	}
	return nil
}

// threshold is a threshold's value as written ("0.7", not float32's
// 0.699999988).
func threshold(v optFloat) float64 {
	if t, err := strconv.ParseFloat(strings.TrimSpace(v.node.Value), 64); err == nil {
		return t
	}
	return float64(v.val)
}

func orDefault(v optUint, def uint64) uint64 {
	if v.node == nil {
		return def
	}
	return v.val
}

// JSON returns the eval config as murmur serialises it for hooks
// (MURMUR_EVAL_CONFIG): {"dataset_id":...,"scorers":[{"type":...,"name":...}]},
// each scorer carrying only its own fields, dataset_id left out when absent.
func (e *Eval) JSON() string {
	type scorer struct {
		Type     ScorerType `json:"type"`
		Name     string     `json:"name"`
		Max      *uint64    `json:"max,omitempty"`
		Expected *[]string  `json:"expected,omitempty"`
	}
	doc := struct {
		DatasetID string   `json:"dataset_id,omitempty"`
		Scorers   []scorer `json:"scorers"`
	}{DatasetID: e.DatasetID, Scorers: []scorer{}}
	for _, s := range e.Scorers {
		js := scorer{Type: s.Type, Name: s.Name}
		switch s.Type {
		case ScorerMaxTurns, ScorerMaxTokens:
			js.Max = &s.Max
		case ScorerToolSequence:
			js.Expected = &s.Expected
		}
		doc.Scorers = append(doc.Scorers, js)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // serde_json leaves <, > and & alone
	_ = enc.Encode(doc)      // plain strings and numbers cannot fail
	return strings.TrimSuffix(buf.String(), "\n")
}
