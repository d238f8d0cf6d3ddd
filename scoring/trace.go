package scoring

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// maxTraceLine bounds one trace line; a longer line is an error, not an
// allocation of whatever size the file claims.
const maxTraceLine = 64 << 20

// TraceSummary is what murmur's eval hook sees of a session: the totals and
// exit status of the last session_end, and every tool called, in order.
type TraceSummary struct {
	Ended             bool // a session_end was found
	ExitStatus        string
	TotalTurns        int64
	TotalInputTokens  int64
	TotalOutputTokens int64
	EndedAt           int64 // session_end's timestamp, Unix ms
	// TaskExitStatus is the last task_end's exit_status ("" when none).
	TaskExitStatus string
	// Observed is murmur-hook-eval's `observed`: the name of every tool
	// call (tool_call) and skill call (skill_call), failed ones included.
	Observed []string
}

// traceLine is the part of a trace.jsonl line the scorers read.
type traceLine struct {
	EventType         *string `json:"event_type"`
	Timestamp         int64   `json:"timestamp"`
	ToolName          *string `json:"tool_name"`
	SkillName         *string `json:"skill_name"`
	TotalTurns        int64   `json:"total_turns"`
	TotalInputTokens  int64   `json:"total_input_tokens"`
	TotalOutputTokens int64   `json:"total_output_tokens"`
	ExitStatus        *string `json:"exit_status"`
}

// ParseTrace reads a trace.jsonl. As in murmur's trace readers, unknown event
// types are ignored, the last session_end wins, and a line that is not a
// JSON object with an event_type, or a known event missing a field the
// scorers need, is an error naming its line.
func ParseTrace(r io.Reader) (TraceSummary, error) {
	var s TraceSummary
	br := bufio.NewReader(r)
	for n := 1; ; n++ {
		line, err := readLine(br)
		if len(bytes.TrimSpace(line)) > 0 {
			if perr := s.add(line); perr != nil {
				return s, fmt.Errorf("trace.jsonl:%d: %w", n, perr)
			}
		}
		if err == io.EOF {
			return s, nil
		}
		if err != nil {
			return s, fmt.Errorf("trace.jsonl:%d: %w", n, err)
		}
	}
}

// SummarizeTrace is ParseTrace over lines already in memory.
func SummarizeTrace(lines [][]byte) (TraceSummary, error) {
	var s TraceSummary
	for i, l := range lines {
		if err := s.add(l); err != nil {
			return s, fmt.Errorf("trace.jsonl:%d: %w", i+1, err)
		}
	}
	return s, nil
}

func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	for {
		chunk, err := br.ReadSlice('\n')
		buf = append(buf, chunk...)
		if len(buf) > maxTraceLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxTraceLine)
		}
		if err != bufio.ErrBufferFull {
			return buf, err
		}
	}
}

func (s *TraceSummary) add(line []byte) error {
	var l traceLine
	if err := json.Unmarshal(line, &l); err != nil {
		return fmt.Errorf("not a JSON object: %w", err)
	}
	if l.EventType == nil {
		return fmt.Errorf("missing field event_type")
	}
	switch *l.EventType {
	case "tool_call":
		if l.ToolName == nil {
			return fmt.Errorf("tool_call without tool_name")
		}
		s.Observed = append(s.Observed, *l.ToolName)
	case "skill_call":
		if l.SkillName == nil {
			return fmt.Errorf("skill_call without skill_name")
		}
		s.Observed = append(s.Observed, *l.SkillName)
	case "task_end":
		if l.ExitStatus != nil {
			s.TaskExitStatus = *l.ExitStatus
		}
	case "session_end":
		if l.ExitStatus == nil {
			return fmt.Errorf("session_end without exit_status")
		}
		s.Ended, s.ExitStatus, s.EndedAt = true, *l.ExitStatus, l.Timestamp
		s.TotalTurns, s.TotalInputTokens, s.TotalOutputTokens = l.TotalTurns, l.TotalInputTokens, l.TotalOutputTokens
	}
	return nil
}
