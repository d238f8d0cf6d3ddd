package openai

import (
	"strconv"
	"strings"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// direct is the canonical response of a, built as the round trip
// (roundTrip) builds it but without it: Raw written byte for byte as
// httpapi.DriverJSON writes the driver's data, Content and Blocks as
// inference.ParseResponse reads them back out of Raw (RATIONALE.md, "Why
// does the OpenAI provider build its canonical response directly?"). ok is
// false for an answer the round trip fails or refuses (arguments that are
// not one JSON object, a number beyond f64, a blank tool call id or name)
// and for strings that are not UTF-8: those take the round trip, which
// has the texts of those failures. FuzzDecodeMatchesRoundTrip holds the
// two to the same Response and error on any body.
func direct(a answer) (*inference.Response, bool) {
	b := make([]byte, 0, a.size())
	b = append(b, `{"content":`...)
	contentStart := len(b)
	b = append(b, '[')
	var blocks []inference.Block
	var inputs [][2]int // each tool call's input, by its offsets in b
	var clean bool
	if len(a.calls) > 0 {
		blocks = make([]inference.Block, 0, len(a.calls))
		inputs = make([][2]int, 0, len(a.calls))
	}
	for i, c := range a.calls {
		if strings.TrimSpace(c.id) == "" || strings.TrimSpace(c.name) == "" {
			return nil, false // ParseResponse refuses it
		}
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"id":`...)
		if b, clean = appendString(b, c.id); !clean {
			return nil, false
		}
		b = append(b, `,"input":`...)
		start := len(b)
		var ok bool
		if b, ok = appendArguments(b, c.arguments); !ok {
			return nil, false
		}
		inputs = append(inputs, [2]int{start, len(b)})
		b = append(b, `,"name":`...)
		if b, clean = appendString(b, c.name); !clean {
			return nil, false
		}
		b = append(b, `,"type":"tool_call"}`...)
		blocks = append(blocks, inference.Block{Type: "tool_call", ID: c.id, Name: c.name})
	}
	if len(a.texts) > 0 {
		blocks = make([]inference.Block, 0, len(a.texts))
	}
	for i, t := range a.texts {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"text":`...)
		if b, clean = appendString(b, t); !clean {
			return nil, false
		}
		b = append(b, `,"type":"text"}`...)
		blocks = append(blocks, inference.Block{Type: "text", Text: t})
	}
	b = append(b, ']')
	contentEnd := len(b)
	b = append(b, `,"stop_reason":"`...)
	b = append(b, a.stop...) // one of the Stop constants: nothing to escape
	b = append(b, '"')
	if u := a.usage; u != nil {
		b = append(b, `,"usage":{"input_tokens":`...)
		b = strconv.AppendInt(b, u.InputTokens, 10)
		b = append(b, `,"output_tokens":`...)
		b = strconv.AppendInt(b, u.OutputTokens, 10)
		b = append(b, '}')
	}
	b = append(b, '}')
	// Content and each Input share b's bytes, capped so that an append to
	// one cannot write into another: nothing writes to them in place.
	for i, in := range inputs {
		blocks[i].Input = b[in[0]:in[1]:in[1]]
	}
	return &inference.Response{StopReason: a.stop, Content: escapeHTML(b[contentStart:contentEnd]),
		Blocks: blocks, Usage: a.usage, Raw: b}, true
}

// size is a guess at the length of a's Raw, so that it is allocated once.
func (a answer) size() int {
	n := 96
	for _, c := range a.calls {
		n += 48 + len(c.id) + len(c.name) + len(c.arguments)*9/8
	}
	for _, t := range a.texts {
		n += 24 + len(t)*9/8
	}
	return n
}
