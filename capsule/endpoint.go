package capsule

// CheckEndpoint applies murmur's rule for inference.endpoint (https, or
// plain http to a loopback host) to an endpoint given elsewhere, such as
// a --variants file's, and returns what is wrong with it, or "".
func CheckEndpoint(endpoint string) string { return checkEndpoint(endpoint) }
