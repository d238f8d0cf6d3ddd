package replay

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// requestField is the field a recorder adds to a canonical response line.
const requestField = "request_sha256"

// ParseLine decodes one recording line. The response's Raw is the line
// without its request_sha256 field when the recorder put it last (as
// Line does), so a replayed turn carries the very bytes the live provider
// returned and token estimates come out the same.
func ParseLine(line []byte) (Turn, error) {
	r, err := inference.ParseResponse(line)
	if err != nil {
		return Turn{}, err
	}
	var extra struct {
		RequestSHA256 json.RawMessage  `json:"request_sha256"`
		DriverFailed  bool             `json:"murmur_eval_driver_failed"`
		ProviderUsage *inference.Usage `json:"murmur_eval_provider_usage"`
	}
	_ = json.Unmarshal(line, &extra) // ParseResponse accepted it: an object
	r.DriverFailed = extra.DriverFailed && r.StopReason == inference.StopError
	if u := extra.ProviderUsage; u != nil && u.InputTokens >= 0 && u.OutputTokens >= 0 {
		r.Usage = u
	}
	t := Turn{Response: r}
	if len(extra.RequestSHA256) == 0 || string(extra.RequestSHA256) == "null" {
		return t, nil
	}
	if err := json.Unmarshal(extra.RequestSHA256, &t.RequestSHA256); err != nil {
		return Turn{}, fmt.Errorf("%s must be a string", requestField)
	}
	if suffix := append(usageSuffix(extra.ProviderUsage), lineSuffix(t.RequestSHA256)...); bytes.HasSuffix(line, suffix) && len(line) > len(suffix) {
		raw := append(bytes.Clone(line[:len(line)-len(suffix)]), '}')
		if json.Valid(raw) {
			r.Raw = raw
		}
	}
	return t, nil
}

// Line is the recording line of a response that answered a request with
// digest sum: the response's canonical bytes with request_sha256 added as
// their last field. raw must be a one-line JSON object.
func Line(raw []byte, sum string) ([]byte, error) { return UsageLine(raw, nil, sum) }

// UsageLine is Line with the provider's usage the response's bytes do not
// carry (a driver component's turn) added before request_sha256 as
// inference.ProviderUsageField; a nil usage adds nothing.
func UsageLine(raw []byte, usage *inference.Usage, sum string) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' || bytes.ContainsAny(raw, "\r\n") {
		return nil, fmt.Errorf("response is not a one-line JSON object")
	}
	body := bytes.TrimSpace(raw[:len(raw)-1])
	suffix := append(usageSuffix(usage), lineSuffix(sum)...)
	if len(body) == 1 { // "{}": no field to follow
		return append([]byte("{"), suffix[1:]...), nil
	}
	return append(bytes.Clone(body), suffix...), nil
}

// usageSuffix is the ProviderUsageField member UsageLine writes for u,
// nil for none.
func usageSuffix(u *inference.Usage) []byte {
	if u == nil {
		return nil
	}
	b, err := json.Marshal(u)
	if err != nil { // two int64 fields always encode
		return nil
	}
	return []byte(`,"` + inference.ProviderUsageField + `":` + string(b))
}

func lineSuffix(sum string) []byte {
	q, _ := json.Marshal(sum)
	return []byte(`,"` + requestField + `":` + string(q) + `}`)
}
