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
		RequestSHA256 json.RawMessage `json:"request_sha256"`
		DriverFailed  bool            `json:"murmur_eval_driver_failed"`
	}
	_ = json.Unmarshal(line, &extra) // ParseResponse accepted it: an object
	r.DriverFailed = extra.DriverFailed && r.StopReason == inference.StopError
	t := Turn{Response: r}
	if len(extra.RequestSHA256) == 0 || string(extra.RequestSHA256) == "null" {
		return t, nil
	}
	if err := json.Unmarshal(extra.RequestSHA256, &t.RequestSHA256); err != nil {
		return Turn{}, fmt.Errorf("%s must be a string", requestField)
	}
	if suffix := lineSuffix(t.RequestSHA256); bytes.HasSuffix(line, suffix) && len(line) > len(suffix) {
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
func Line(raw []byte, sum string) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) < 2 || raw[0] != '{' || raw[len(raw)-1] != '}' || bytes.ContainsAny(raw, "\r\n") {
		return nil, fmt.Errorf("response is not a one-line JSON object")
	}
	body := bytes.TrimSpace(raw[:len(raw)-1])
	line := append(bytes.Clone(body), lineSuffix(sum)...)
	if len(body) == 1 { // "{}": no field to follow
		line = append([]byte("{"), lineSuffix(sum)[1:]...)
	}
	return line, nil
}

func lineSuffix(sum string) []byte {
	q, _ := json.Marshal(sum)
	return []byte(`,"` + requestField + `":` + string(q) + `}`)
}
