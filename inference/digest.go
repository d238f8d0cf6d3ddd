package inference

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// WorkdirPlaceholder stands for the session folder in request digests.
const WorkdirPlaceholder = "${MURMUR_EVAL_WORKDIR}"

// RequestDigest is the hex SHA-256 of the request's canonical JSON (the
// payload as the loop builds it, keys in murmur's order) with every
// occurrence of workdir replaced by WorkdirPlaceholder. Recordings store it
// per turn so a replay can tell when the loop now asks something else.
func RequestDigest(req *Request, workdir string) string {
	payload, err := json.Marshal(req)
	if err != nil {
		// A Request holds only JSON-encodable values; RawMessage fields
		// that are not JSON are the one way here. Hash what we have.
		payload = []byte(err.Error())
	}
	if workdir != "" {
		quoted, _ := json.Marshal(workdir)
		payload = bytes.ReplaceAll(payload, quoted[1:len(quoted)-1], []byte(WorkdirPlaceholder))
	}
	sum := sha256.Sum256(payload)
	return hex.EncodeToString(sum[:])
}
