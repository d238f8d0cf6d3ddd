package openai

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	gocmp "github.com/google/go-cmp/cmp"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/inference"
	"github.com/murmur-nexus/murmur-eval/inference/apitest"
	"github.com/murmur-nexus/murmur-eval/inference/httpapi"
)

// trickyBodies are answers at the edges of the direct path: strings the
// encoders escape differently, arguments the round trip rewrites or
// refuses, usage json.Unmarshal accepts or not, blocks the loop refuses.
func trickyBodies() []string {
	text := func(content string) string {
		return `{"choices":[{"message":{"content":` + content + `},"finish_reason":"stop"}]}`
	}
	call := func(id, name, args string) string {
		return `{"choices":[{"message":{"tool_calls":[{"id":` + id + `,"type":"function","function":{"name":` + name + `,"arguments":` + args + `}}]},"finish_reason":"tool_calls"}]}`
	}
	args := func(a string) string {
		q, _ := json.Marshal(a)
		return call(`"c"`, `"bash"`, string(q))
	}
	withUsage := func(u string) string {
		return `{"choices":[{"message":{"content":"a"},"finish_reason":"stop"}],"usage":` + u + `}`
	}
	bodies := []string{
		text(`"<b>&amp;</b> \u2028 \u2029 raw: ` + "\u2028\u2029" + ` \u00e9 é \ud83d\ude00 \ud800 \udc00x \ud800\u0041"`),
		text(`"\u0000\u0001\b\f\n\r\t\u001f\u007f \/ \\ \" \\u2028"`),
		text(`"` + "\x7f" + `"`),
		text(`[{"type":"text","text":"<a>"},{"type":"text","text":"\u2028"},{"type":"refusal","refusal":"no"}]`),
		text(`null,"refusal":"I can't"`),
		call(`"c<&>"`, `"na\u2028me"`, `"{\"a\":\"<&>\\u2028\"}"`),
		call(`"  "`, `"bash"`, `"{}"`),
		call(`"\u00a0"`, `"bash"`, `"{}"`),
		call(`"c"`, `"\u2003"`, `"{}"`),
		call(`"c"`, `5`, `"{}"`),
		call(`"c"`, `"bash"`, `null`),
		args(`{"x":1e400}`),
		args(`{"x":-1e400}`),
		args(`{"a":1.0,"b":-0,"c":-0.0,"d":1E2,"e":0.1,"f":1e-7,"g":123456789012345678,"h":1234567890123456789,"i":18446744073709551616,"j":-9223372036854775808,"k":-9223372036854775809,"l":0,"m":-123456789012345678}`),
		args(`{"z":{"y":[{"b":1,"a":[{"d":0,"c":0}]}],"x":null},"a":true,"a":false,"":"e","é":1,"z\u0000":2,"\u00e9":3}`),
		args(`{"a":1,"a":{"b":2},"a":[3]}`),
		args(`{"k\ud800":"\ud800","\/":"\b"}`),
		args(` {"a":1} ` + "\n\t\r"),
		args(`{"a":1}` + "\u00a0"),
		args(`{"a":1} x`),
		args(`{"a":1,}`),
		args(`{"a" 1}`),
		args(`{"a":01}`),
		args(`{"a":1.}`),
		args(`{"a":.5}`),
		args(`{"a":-}`),
		args(`{"a":"\x"}`),
		args(`{"a":"\u12"}`),
		args(`{"a":tru}`),
		args(`[1]`),
		args(`"s"`),
		args(`1`),
		args(`null`),
		args(``),
		args(`   `),
		args(strings.Repeat(`{"a":`, 300) + `1` + strings.Repeat(`}`, 300)),
		args(strings.Repeat(`[`, 150) + strings.Repeat(`]`, 150)),
		args(`{"a":` + strings.Repeat(`[`, 199) + strings.Repeat(`]`, 199) + `}`),
		withUsage(`null`),
		withUsage(`"x"`),
		withUsage(`[1]`),
		withUsage(`{}`),
		withUsage(`{"prompt_tokens":null}`),
		withUsage(`{"prompt_tokens":5,"prompt_tokens":null}`),
		withUsage(`{"prompt_tokens":1.0}`),
		withUsage(`{"prompt_tokens":1e2}`),
		withUsage(`{"prompt_tokens":-0}`),
		withUsage(`{"prompt_tokens":-1}`),
		withUsage(`{"completion_tokens":-1,"completion_tokens":1}`),
		withUsage(`{"prompt_tokens":9223372036854775808}`),
		withUsage(`{"prompt_tokens":-9223372036854775808}`),
		withUsage(`{"Prompt_Tokens":3,"COMPLETION_TOKENS":4}`),
		withUsage(`{"prompt_tokenſ":3,"completion_to\u212aens":4}`),
		withUsage(`{"\u0070rompt_tokens":3,"x":{"prompt_tokens":"y"}}`),
		withUsage(`{"prompt_tokens":"5"}`),
		withUsage(`{"prompt_tokens":true}`),
		withUsage(`{"prompt_tokens":{}}`),
		withUsage(`{"prompt_tokens":[]}`),
		withUsage(` { "prompt_tokens" : 7 , "completion_tokens" : 8 } `),
		withUsage(`{"prompt_tokens":9,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":4}}`),
		withUsage(`{"prompt_tokens":9,"completion_tokens":1,"prompt_tokens_details":{"cached_tokens":"4"}}`),
		withUsage(`{"prompt_tokens":9,"prompt_tokens_details":null}`),
		`{"choices":[{"message":{"content":"a"},"finish_reason":"length"}]}`,
		`{"choices":[{"message":{"content":"a"},"finish_reason":"content_filter"}]}`,
		`{"choices":[{"message":{"content":"a"},"finish_reason":"function_call"}]}`,
		`{"choices":[{"message":{"content":"a"},"finish_reason":5}]}`,
		"{\"choices\":[{\"message\":{\"content\":\"\xff\"}}]}",
		"{\"choices\":[{\"message\":{\"content\":\"\xe2\x80\"}}]}",
		"data: {\"choices\":[{\"delta\":{\"content\":\"<&>\\u2028\"}}]}\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"c\",\"function\":{\"name\":\"n\",\"arguments\":\"{\\\"b\\\":1,\"}}]}}]}\ndata: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"a\\\":2}\"}}]},\"finish_reason\":\"tool_calls\"}]}\n",
		"data: {\"choices\":[{\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"name\":\"n\",\"arguments\":\"{}\"}}]}}]}\n",
	}
	return bodies
}

// FuzzDecodeMatchesRoundTrip: Decode, which builds the common answers
// directly, gives the Response and error the round trip it replaced gives
// (decodeRoundTrip, the reference) on any body.
func FuzzDecodeMatchesRoundTrip(f *testing.F) {
	for _, tt := range decodeTests() {
		f.Add([]byte(tt.body))
	}
	for _, b := range trickyBodies() {
		f.Add([]byte(b))
	}
	f.Add([]byte(sseBody))
	f.Add([]byte(apitest.OpenAICompletion("tool_calls", "x", 1, 2, apitest.OpenAIToolCall("c", "n", `{"a":1}`))))
	f.Add([]byte(apitest.OpenAICompletion("stop", "hi \u00e9 \"q\"", 1, 2)))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, gotErr := Decode(body)
		want, wantErr := decodeRoundTrip(body)
		if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && (errcode.Code(gotErr) != errcode.Code(wantErr) || gotErr.Error() != wantErr.Error())) {
			t.Fatalf("Decode(%q) error = %v, round trip %v", body, gotErr, wantErr)
		}
		if !reflect.DeepEqual(gotErr, wantErr) {
			t.Fatalf("Decode(%q) error = %#v, round trip %#v", body, gotErr, wantErr)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Decode(%q) differs from the round trip (-round trip +Decode):\n%s", body, gocmp.Diff(want, got))
		}
	})
}

// TestDecodeTakesDirectPath: the answers models give most are built
// without the round trip.
func TestDecodeTakesDirectPath(t *testing.T) {
	for _, body := range []string{
		apitest.OpenAICompletion("stop", "The directory holds three files: a.txt, b.txt and c.txt.", 40, 18),
		apitest.OpenAICompletion("stop", "line one\nline \"two\" <b>&</b> é \u2028", 40, 18),
		apitest.OpenAICompletion("length", "cut", 0, 0),
		`{"choices":[{"message":{"content":"a"},"finish_reason":"stop"}]}`,
		`{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},"finish_reason":"stop"}]}`,
		`{"choices":[{"message":{"content":null},"finish_reason":"stop"}]}`,
		apitest.OpenAICompletion("tool_calls", "", 40, 18, apitest.OpenAIToolCall("call_Qn2", "bash", `{"command":"ls -la"}`)),
		apitest.OpenAICompletion("tool_calls", "", 40, 18, apitest.OpenAIToolCall("call_1", "edit", `{"path":"a.go","old":"x := 1\n","new":"x := 2.50\n","opts":{"z":[1,2],"a":null}}`),
			apitest.OpenAIToolCall("call_2", "calc", `{}`)),
		`{"choices":[{"message":{"tool_calls":[{"id":"c","function":{"name":"n"}}]},"finish_reason":"tool_calls"}]}`,
		sseBody,
	} {
		a, failed := read([]byte(body))
		if failed != "" {
			t.Fatalf("read(%s) failed: %s", body, failed)
		}
		if _, ok := direct(a); !ok {
			t.Errorf("direct(%s) took the round trip", body)
		}
	}
}

// FuzzUnquote: unquote reads a string literal as encoding/json does.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{`"a"`, `"\u00e9\ud83d\ude00"`, `"\ud800\u0041"`, `"\udc00"`, `"\ud800\ud800"`, `"\ud800\uzzzz"`, `"\x"`, `"a"b"`, `"\"`, "\"\xff\xe2\x80\"", "\"\x01\"", `"\/\b\f\n\r\t"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, q []byte) {
		if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
			return
		}
		got, ok := unquote(q)
		var want string
		wantOK := json.Unmarshal(q, &want) == nil
		if ok != wantOK || got != want {
			t.Fatalf("unquote(%q) = %q, %v; encoding/json %q, %v", q, got, ok, want, wantOK)
		}
	})
}

// FuzzAppendString: appendString writes a string as httpapi.DriverJSON
// does, and escapeHTML adds what json.Marshal adds to a json.RawMessage.
func FuzzAppendString(f *testing.F) {
	for _, s := range []string{"a", "<&>", "\u2028\u2029", "\x00\x1f\x7f\b\f\n\r\t\"\\", "\xff", "\xe2\x80", "é😀", `\u2028`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, clean := appendString(nil, s)
		if want := httpapi.DriverJSON(s); string(got) != want || clean != utf8.ValidString(s) {
			t.Fatalf("appendString(%q) = %s, %v; DriverJSON %s", s, got, clean, want)
		}
		want, err := json.Marshal(json.RawMessage(got))
		if err != nil {
			t.Fatal(err)
		}
		if esc := escapeHTML(got); !bytes.Equal(esc, want) {
			t.Fatalf("escapeHTML(%s) = %s, json.Marshal %s", got, esc, want)
		}
	})
}

// FuzzAppendArguments: appendArguments writes what the round trip writes
// for every arguments text it takes on, and takes on every object the
// round trip accepts within its depth.
func FuzzAppendArguments(f *testing.F) {
	for _, s := range []string{`{}`, ` {"b":1,"a":[1.0,-0,1e400]} `, `{"a":1,"a":2}`, `{"é":"\u2028<"}`, `[1]`, `{} x`, `{"a":1}` + "\u00a0", `{"x":18446744073709551616}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := appendArguments(nil, s)
		v, err := refArguments(s)
		_, isObject := v.(map[string]any)
		if !ok {
			if err == nil && isObject && strings.HasSuffix(strings.TrimRight(s, " \t\r\n"), "}") && nesting(s) <= maxCanonicalDepth {
				t.Fatalf("appendArguments(%q) left an object the round trip accepts to it", s)
			}
			return
		}
		if err != nil || !isObject {
			t.Fatalf("appendArguments(%q) = %s; round trip: %v, %T", s, got, err, v)
		}
		if want := httpapi.DriverJSON(v); string(got) != want {
			t.Fatalf("appendArguments(%q) = %s, round trip %s", s, got, want)
		}
	})
}

// nesting is how deep the arrays and objects of the JSON text s go.
func nesting(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			i += stringEnd([]byte(s[i:])) - 1
		case '{', '[':
			depth++
			deepest = max(deepest, depth)
		case '}', ']':
			depth--
		}
	}
	return deepest
}

// TestCachedTokens: prompt_tokens_details.cached_tokens is the cached part
// of the input, on the direct path and the round trip alike, and stays out
// of the canonical bytes (the driver's).
func TestCachedTokens(t *testing.T) {
	body := `{"choices":[{"message":{"content":"a"},"finish_reason":"stop"}],"usage":{"prompt_tokens":2000,"completion_tokens":5,"prompt_tokens_details":{"cached_tokens":1536}}}`
	for name, decode := range map[string]func([]byte) (*inference.Response, error){"Decode": Decode, "round trip": decodeRoundTrip} {
		r, err := decode([]byte(body))
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Usage; got == nil || *got != (inference.Usage{InputTokens: 2000, OutputTokens: 5, CachedInputTokens: 1536}) {
			t.Errorf("%s: usage %+v, want 1536 of 2000 cached", name, got)
		}
		if bytes.Contains(r.Raw, []byte("cached")) {
			t.Errorf("%s: canonical bytes %s carry the cached count", name, r.Raw)
		}
	}
}
