package cache

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"strconv"

	"github.com/murmur-nexus/murmur-eval/inference"
)

// keyVersion changes when what a key covers or an entry holds changes, so
// a newer murmur-eval never serves an older one's entries as its own.
const keyVersion = "murmur-eval-cache/1"

// scope is what, besides the request, decides which answer a request gets:
// where it goes (transport, endpoint), what speaks to the model (the driver
// artifact and its config, which choose the wire API), the model, and the
// epoch, so that each epoch of a case keeps its own sample. The API key is
// not part of it: two keys for one model get one answer.
type scope struct {
	Version      string          `json:"v"`
	Transport    string          `json:"transport"`
	Endpoint     string          `json:"endpoint"`
	Model        string          `json:"model"`
	Driver       string          `json:"driver"`
	DriverConfig json.RawMessage `json:"driver_config,omitempty"`
	Epoch        string          `json:"epoch"`
}

// scopeOf encodes c's scope once per case.
func scopeOf(c inference.Case) []byte {
	inf := c.Inference
	sc := scope{Version: keyVersion, Transport: inf.Transport, Endpoint: inf.Endpoint, Model: inf.Model,
		Driver: inf.DriverArtifact, Epoch: strconv.Itoa(c.Epoch)}
	if json.Valid(inf.DriverConfig) {
		sc.DriverConfig = inf.DriverConfig
	} else if len(inf.DriverConfig) > 0 {
		sc.DriverConfig, _ = json.Marshal(string(inf.DriverConfig))
	}
	b, err := json.Marshal(sc)
	if err != nil { // strings and valid JSON always encode
		b = []byte(keyVersion + "\x00" + inf.Endpoint + "\x00" + inf.Model)
	}
	return b
}

// key is the hex SHA-256 of the scope and the request's digest.
func key(scope []byte, digest string) string {
	h := sha256.New()
	h.Write(scope)
	h.Write([]byte{'\n'})
	h.Write([]byte(digest))
	return hex.EncodeToString(h.Sum(nil))
}
