package loop

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/tokens"
	"github.com/murmur-nexus/murmur-eval/internal/jsonstr"
)

// turnTokens are one turn's counts as murmur's agent loop makes them
// (agent.rs): cl100k_base over the request payload and over the driver's
// response, each as serde_json writes it (compact, keys sorted, no HTML
// escapes). The session folder is counted as inference.WorkdirPlaceholder,
// as request digests hash it: a count must not depend on where the run
// folder is (a replay, another machine), and murmur's own path differs
// from murmur-eval's anyway. ok is false when the ranks could not be
// loaded and the counts are murmur's len/4 fallback.
//
// The bytes are serdeRequest's and serdeResponse's, serdeJSON's when those
// refuse (TestTurnTokensMatchMarshal and FuzzTurnTokens hold them to
// serdeJSON).
func turnTokens(c *tokens.Counter, req *inference.Request, resp *inference.Response, workdir string) (in, out int64, ok bool, err error) {
	payload, fast := serdeRequest(req)
	if !fast {
		if payload, err = serdeJSON(req); err != nil {
			return 0, 0, false, err
		}
	}
	in, okIn := c.Count(withoutWorkdir(payload, workdir))
	raw, fast := serdeResponse(resp)
	if !fast {
		if raw, err = serdeJSON(driverResponse(resp)); err != nil {
			return 0, 0, false, err
		}
	}
	out, okOut := c.Count(withoutWorkdir(raw, workdir))
	return in, out, okIn && okOut, nil
}

// withoutWorkdir is b with every JSON-escaped occurrence of workdir
// replaced by inference.WorkdirPlaceholder, written straight into the
// string it returns (one copy of b, as string(b) would be).
func withoutWorkdir(b []byte, workdir string) string {
	var s strings.Builder
	s.Grow(len(b))
	if workdir != "" {
		old := quotedWorkdir(workdir)
		for i := bytes.Index(b, old); i >= 0; i = bytes.Index(b, old) {
			s.Write(b[:i])
			s.WriteString(inference.WorkdirPlaceholder)
			b = b[i+len(old):]
		}
	}
	s.Write(b)
	return s.String()
}

// quotedWorkdir is workdir as the payload writes it inside a JSON string:
// in jsonstr's NoHTML style, as serdeRequest and canonical write every
// string. json.Marshal's copy (\u0026 for "&") would never match, and a
// session folder with <, > or & in its path would be counted as itself
// instead of the placeholder.
func quotedWorkdir(workdir string) []byte {
	quoted, _ := jsonstr.Append(nil, workdir, jsonstr.NoHTML)
	return quoted[1 : len(quoted)-1]
}

// driverResponse is what murmur's driver returns for a response and the
// loop counts: its content and stop reason (and an error's text), without
// the provider's usage or anything else a recording line holds.
func driverResponse(resp *inference.Response) any {
	r := struct {
		Content    json.RawMessage `json:"content"`
		Error      string          `json:"error,omitempty"`
		StopReason string          `json:"stop_reason"`
	}{Content: resp.Content, Error: resp.Error, StopReason: resp.StopReason}
	if len(r.Content) == 0 {
		r.Content = json.RawMessage("[]")
	}
	return r
}

// serdeJSON encodes v as serde_json's to_string writes a Value: compact,
// the keys of every object sorted (content blocks and tool inputs kept
// verbatim in v are re-sorted), numbers as written, <, > and & unescaped.
// Most values take canonical's one pass; the rest go through serdeTree.
func serdeJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	if out, ok := canonical(raw); ok {
		return out, nil
	}
	return serdeTree(raw)
}

// serdeTree is serdeJSON the slow way, for any json.Marshal output: decoded
// into a tree (numbers kept as written, a repeated key's last value) and
// encoded again, the encoder sorting every map's keys.
func serdeTree(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var tree any
	if err := dec.Decode(&tree); err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tree); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
