package loop

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/tokens"
)

// turnTokensMarshal is turnTokens as first written: json.Marshal, then
// canonical (or serdeTree), then bytes.ReplaceAll and a string copy. The
// faster one must count the same, and fail alike.
func turnTokensMarshal(c *tokens.Counter, req *inference.Request, resp *inference.Response, workdir string) (in, out int64, ok bool, err error) {
	payload, err := serdeJSON(req)
	if err != nil {
		return 0, 0, false, err
	}
	in, okIn := c.Count(withoutWorkdirReplace(payload, workdir))
	raw, err := serdeJSON(driverResponse(resp))
	if err != nil {
		return 0, 0, false, err
	}
	out, okOut := c.Count(withoutWorkdirReplace(raw, workdir))
	return in, out, okIn && okOut, nil
}

func withoutWorkdirReplace(b []byte, workdir string) string {
	if workdir == "" {
		return string(b)
	}
	var q strings.Builder
	enc := json.NewEncoder(&q)
	enc.SetEscapeHTML(false) // the payload's strings keep <, > and & as they are
	_ = enc.Encode(workdir)
	quoted := strings.TrimSuffix(q.String(), "\n")
	return string(bytes.ReplaceAll(b, []byte(quoted[1:len(quoted)-1]), []byte(inference.WorkdirPlaceholder)))
}

// checkTurn holds turnTokens to turnTokensMarshal on one turn: the same
// counts and error, and the direct writers' bytes, when they take the
// turn, serdeJSON's.
func checkTurn(t *testing.T, c *tokens.Counter, req *inference.Request, resp *inference.Response, workdir string) {
	t.Helper()
	in, out, ok, err := turnTokens(c, req, resp, workdir)
	wantIn, wantOut, wantOK, wantErr := turnTokensMarshal(c, req, resp, workdir)
	if in != wantIn || out != wantOut || ok != wantOK || (err == nil) != (wantErr == nil) {
		t.Fatalf("turnTokens = %d, %d, %v, %v; the Marshal way %d, %d, %v, %v\nrequest %+v\nresponse %+v\nworkdir %q",
			in, out, ok, err, wantIn, wantOut, wantOK, wantErr, req, resp, workdir)
	}
	if got, fast := serdeRequest(req); fast {
		if want, err := serdeJSON(req); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("serdeRequest\n got %q\nwant %q, %v", got, want, err)
		}
	}
	if got, fast := serdeResponse(resp); fast {
		if want, err := serdeJSON(driverResponse(resp)); err != nil || !bytes.Equal(got, want) {
			t.Fatalf("serdeResponse\n got %q\nwant %q, %v", got, want, err)
		}
	}
	payload, _ := serdeJSON(req)
	if got, want := withoutWorkdir(payload, workdir), withoutWorkdirReplace(payload, workdir); got != want {
		t.Fatalf("withoutWorkdir(%q)\n got %q\nwant %q", workdir, got, want)
	}
}

// diffWorkdirs are session folders, some of which JSON escapes (a quote,
// a backslash, a control character, the HTML characters json.Marshal
// escapes and the payload does not, U+2028) or which are short enough to
// occur inside other words.
var diffWorkdirs = []string{
	"", "/tmp/run/sessions/ses_1", `C:\Users\me\run\ses_2`, "/tmp/a \"quoted\" dir/ses_3",
	"/tmp/tab\there/ses_4", "/tmp/<b>&amp;/ses_5", "/tmp/line\u2028sep/ses_6", "/tmp/日本語/ses_7", "s", "/",
}

func TestTurnTokensMatchMarshal(t *testing.T) {
	var c tokens.Counter
	tru, fls := true, false
	systems := []string{
		"", "plain", "a <b> & c \"q\" back\\slash\n\r\t\b\f\x00\x01\x1f\x7f", "sep\u2028\u2029 é 日本 👍🏽",
		"invalid \xff utf-8 \xe2\x80", "\xe2\x80\xa8 at the start, at the end \xe2\x80", "<|endoftext|> special",
	}
	contents := []json.RawMessage{
		nil, json.RawMessage(`[]`), json.RawMessage(`[{"type":"text","text":"hi <b> & \u003c \u2028"}]`),
		json.RawMessage(`[{"type":"tool_call","name":"calc","id":"c1","input":{"z":1,"a":2.50,"a":-0e+5}}]`),
		json.RawMessage(`[ {"type": "text", "text": "spaced"} ]`), json.RawMessage(`[{"text":"\u00e9\/"}]`),
		json.RawMessage(`[{"k":01}]`), json.RawMessage(`[{"k":1.}]`), json.RawMessage(`[{"k":"raw` + "\x01" + `"}]`),
		json.RawMessage(`[{"k<":"v"}]`), json.RawMessage("[\"raw \u2028\"]"), json.RawMessage(`not json`),
		json.RawMessage(`{"a":1}x`), {},
	}
	params := []json.RawMessage{nil, json.RawMessage(`{}`), json.RawMessage(`{"top_p":1,"temperature":0.2}`), json.RawMessage(`{"a":`)}
	for _, wd := range diffWorkdirs {
		for _, sys := range systems {
			for k, content := range contents {
				req := &inference.Request{MaxTokens: 8192 * k, Model: "m<" + wd, Params: params[k%len(params)],
					System: sys + "\nWorkdir: " + wd + "\n" + sys,
					Messages: []inference.Message{inference.UserMessage("look in " + wd + "/notes"),
						inference.AssistantMessage(content), inference.ToolMessage("c1", k%2 == 0, "saved "+wd),
						{Role: "tool", Content: content, IsError: &fls}, {Role: "user", Content: content, IsError: &tru, ToolCallID: wd}},
					Tools: []inference.Tool{{Name: "calc", Description: "adds " + wd, Parameters: contents[(k+3)%len(contents)]},
						{Name: "none", Parameters: content}}}
				if k%4 == 3 {
					req.Messages, req.Tools = nil, nil
				}
				resp := &inference.Response{StopReason: inference.StopEndTurn, Content: content, Error: sys}
				checkTurn(t, &c, req, resp, wd)
			}
		}
	}
}

// FuzzTurnTokens: on any request and response, turnTokens counts what the
// Marshal way counts.
func FuzzTurnTokens(f *testing.F) {
	f.Add("You are <careful> & exact.\n", "What is 6*7?", "/tmp/run/sessions/ses_1", `{}`, `[{"type":"text","text":"42"}]`, `{"type":"object"}`)
	f.Add("\u2028\x01\"\\", "x\xff", `C:\dir "q"`, `{"b":1,"a":[1,2.5e-3]}`, `[{"a":"\u003c"}]`, `{"z":{},"a":null}`)
	var c tokens.Counter
	f.Fuzz(func(t *testing.T, system, task, workdir, params, content, schema string) {
		req := &inference.Request{MaxTokens: len(system), Model: task, Params: json.RawMessage(params),
			System: system + workdir, Messages: []inference.Message{inference.UserMessage(task + workdir), inference.AssistantMessage(json.RawMessage(content))},
			Tools: []inference.Tool{{Name: task, Description: workdir, Parameters: json.RawMessage(schema)}}}
		resp := &inference.Response{StopReason: task, Content: json.RawMessage(content), Error: strings.ToUpper(task)}
		checkTurn(t, &c, req, resp, workdir)
	})
}

// A turn as a run has it takes the direct writers, not the Marshal way.
func TestSerdeDirectTakesTurns(t *testing.T) {
	req, resp, _ := benchTurn(7)
	req.Messages = append(req.Messages, inference.AssistantMessage(resp.Content), inference.ToolMessage("call_1", false, "42 <ok> & \"done\"\n"))
	if _, ok := serdeRequest(req); !ok {
		t.Error("serdeRequest refused a run's request")
	}
	if _, ok := serdeResponse(resp); !ok {
		t.Error("serdeResponse refused a run's response")
	}
	req.Params = json.RawMessage(`{"a":"\u00e9"}`)
	if _, ok := serdeRequest(req); ok {
		t.Error(`serdeRequest took \u00e9, which json.Marshal keeps and serdeTree decodes`)
	}
}
