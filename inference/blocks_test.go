package inference

import (
	"encoding/json"
	"errors"
	"testing"
)

// A block that does not decode is the decoder's error, wrapped: a caller
// can read its kind and offset with errors.As.
func TestBlocksWrapsTheDecodeError(t *testing.T) {
	_, err := Message{Role: "assistant", Content: json.RawMessage(`[{"type":5}]`)}.Blocks()
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		t.Fatalf("Blocks = %v, want a wrapped *json.UnmarshalTypeError", err)
	}
}
