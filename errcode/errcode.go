// Package errcode defines murmur-eval's one error type and its stable codes.
//
// A code is a string so that a Parquet row stays meaningful as the list grows.
// Where murmur has a code for a failure, murmur-eval uses murmur's code
// (murmur-formats.md §6); codes murmur does not have use the E-EVL- prefix.
// Never reorder or reuse a code: dashboards query them.
package errcode

import (
	"errors"
	"fmt"
	"strings"
)

// Codes shared with murmur (exact meaning in murmur-formats.md §6).
const (
	ManifestMissingField = "E-MAN-001"  // missing required manifest field
	ManifestSyntax       = "E-MAN-002"  // YAML syntax or shape error
	ManifestInvalid      = "E-MAN-003"  // structurally valid value rejected
	RegistryNotFound     = "E-REG-001"  // artifact not found in any store
	RegistryIntegrity    = "E-REG-002"  // artifact bytes do not match sidecar or lock
	RegistryReserved     = "E-REG-004"  // reserved version string (latest, stable, edge)
	RunCapsule           = "E-RUN-001"  // guest trap, compile failure, deadline or memory limit
	RunWASIImport        = "E-RUN-002"  // missing WASI import
	RunLock              = "E-RUN-003"  // lock entry missing or mismatched, invalid lockfile
	RunScriptWasm        = "E-RUN-004"  // script capsule's component not found, or ambiguous, in the project folder
	RunDriverMissing     = "E-RUN-005"  // inference driver not configured
	RunDriverAbsent      = "E-RUN-006"  // driver not installed; a process command not on PATH
	RunAgentLoop         = "E-RUN-007"  // agent loop failed at runtime
	RunNotInstalled      = "E-RUN-008"  // required artifact not installed locally
	RunSystemPrompt      = "E-RUN-009"  // system prompt file or prompt artifact unreadable
	RunResourceLimit     = "E-RUN-011"  // native subprocess killed for exceeding a capabilities.resources limit (murmur's; murmur-eval reports the limit in the shell event instead)
	RunWorkdirSize       = "E-RUN-013"  // session workdir exceeded workdir_max_bytes
	CapNetworkEntry      = "E-CAP-001"  // unparseable network.allow entry
	CapScope             = "E-CAP-002"  // filesystem.scope absolute or escaping
	CapContainment       = "E-CAP-003"  // declared containment floor not achievable
	CapEgressNamespace   = "E-CAP-005"  // no network namespace for a subprocess-capable capsule
	IONotFound           = "E-IO-001"   // file or directory not found
	IOPermission         = "E-IO-002"   // host permission denied
	IO                   = "E-IO-003"   // general I/O error, archive read error
	BuildName            = "E-BLD-001"  // artifact name is not a valid identifier
	BuildFiles           = "E-BLD-002"  // requires_files entry unsafe, or an archive-name collision
	BuildPayload         = "E-BLD-003"  // packed entry set is not a launchable wasm payload
	EvalDataset          = "E-EVAL-001" // dataset JSONL parse error
)

// Codes murmur-eval adds.
const (
	Usage               = "E-EVL-001" // bad command line
	ReplayMissing       = "E-EVL-010" // no recording for a case
	ReplayExhausted     = "E-EVL-011" // the loop asked for more turns than were recorded
	ReplayInvalid       = "E-EVL-012" // a recording line is not a valid model response
	ModelResponse       = "E-EVL-013" // a model response the loop cannot use
	ProviderAuth        = "E-EVL-014" // the provider refused the credentials (401, 403): not retried
	ProviderRejected    = "E-EVL-015" // the provider refused the request (other 4xx): not retried
	ProviderUnavailable = "E-EVL-016" // 429, 5xx or connection failures outlasted the retries or the case's budget
	ProviderDriver      = "E-EVL-017" // inference.driver names no API murmur-eval serves, or driver.config is malformed
	Timeout             = "E-EVL-020" // the case ran out of --timeout
	Cancelled           = "E-EVL-021" // the run was interrupted while the case ran
	Prerequisite        = "E-EVL-030" // a stage was skipped because a stage it requires failed
	SessionFile         = "E-EVL-040" // a session file murmur-eval refused: a name leaving the folder, not a regular file, or past its size bound
	RunFolderLocked     = "E-EVL-050" // another murmur-eval process holds the run folder's lock (run, --resume, merge)
	JournalCorrupt      = "E-EVL-051" // a journal line that cannot be read back: merge refuses the journal
	ReadLimit           = "E-EVL-052" // a Parquet file read from elsewhere is past a read limit (a decompression bomb, or a run larger than the limits allow)
	WorkspaceEntry      = "E-EVL-060" // a workspace entry refused: an absolute or ".." name, a link out, a device or FIFO, a name the session reserves
	WorkspaceLimit      = "E-EVL-061" // a workspace past its entry-count or size limits (an archive bomb)
	SetupFailed         = "E-EVL-062" // a case's setup command failed: non-zero exit, killed, or out of its time
	JudgeMissing        = "E-EVL-090" // an llm_judge scorer (the manifest's, or a case's expected.rubric) and no judge model (--judge-model): refused before any case unless --run-anyway
	JudgeAnswer         = "E-EVL-091" // the judge's answer, repaired once, was not the verdict object {"score", "reason"}: a harness error, never a pass or a fail
	NotRescored         = "E-EVL-092" // score: a passed or failed case that cannot be scored again from its session (the folder was not kept, its trace has no session_end, or it is too large to copy for its check or judge): no verdict is guessed
	Internal            = "E-EVL-099" // a bug in murmur-eval
)

// Codes of the checks that keep a run from passing by accident
// (docs/exit-codes.md).
const (
	Variants            = "E-EVL-002" // a --variants file refused before any case (not YAML, an unknown key, a bad value, a duplicate name), at file:line and field; a variant the capsule cannot take (an endpoint for a process transport)
	EmptySelection      = "E-EVL-003" // the dataset, --filter or --limit selected no case: a run of nothing is a usage error (an empty shard of a non-empty selection is only warned about)
	MergeIncomplete     = "E-EVL-004" // merge: (case, epoch) pairs no shard ran (or completeness cannot be checked), without --allow-missing
	StrictWarning       = "E-EVL-005" // --strict: a warning (unknown key, unread expected value, ...) refused the run before any case started
	GateUndetectable    = "E-EVL-006" // the baseline gate cannot detect a drop of --max-drop points with its paired cases, or cannot fire at all: a warning; --require-detectable fails the gate (exit 4)
	UnappliedScoring    = "E-EVL-007" // a scorer or a check the inputs configure would not be applied (a misspelt observability key, an unknown scorer type, an expected value murmur-eval does not read): refused before any case unless --run-anyway
	Prices              = "E-EVL-008" // a --prices file refused before any case (not YAML, an unknown key, a currency other than USD, a price not a non-negative number, a bad model glob, a duplicate model), at file:line and field
	JudgeLabels         = "E-EVL-009" // a --judge-labels file refused before any case (a malformed or oversized line, a label not pass or fail, a duplicate (case_id, scorer, epoch)); as a warning, labels naming a case or scorer the run does not have
	EndpointUnreachable = "E-EVL-018" // the first requests to a model endpoint all failed to connect (refused, DNS, TLS) or were refused for auth, none succeeded: the run stopped starting cases
	ReplayDiverged      = "E-EVL-019" // replayed requests differed from the recorded ones beyond --max-divergence: the recordings answered a different conversation
	ToolNotProvided     = "E-EVL-070" // the model called a tool the capsule does not provide (a tool call's error code, not a case's)
)

// Codes of what `mur eval run` would do with a capsule murmur-eval runs,
// where murmur itself has no code (warnings; --strict refuses them).
const (
	MurmurWouldHang      = "E-EVL-080" // lifecycle queue + sleep: mur eval run would wait for A2A tasks forever
	MurmurEndpointDenied = "E-EVL-081" // inference.endpoint outside the driver's network.allow: murmur's driver is denied every request
)

// Error is a failure with a stable code. Where says which input made it fail
// ("cases.jsonl:14", "murmur.yaml:3:5"); Hint tells the user how to fix it.
type Error struct {
	Code  string
	Where string
	Msg   string
	Hint  string
	Err   error
}

// New returns an Error with a formatted message.
func New(code, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...)}
}

// Wrap returns an Error whose message is msg followed by the cause.
func Wrap(code string, err error, format string, args ...any) *Error {
	return &Error{Code: code, Msg: fmt.Sprintf(format, args...), Err: err}
}

// WrapKeep is Wrap with err's own code when it carries one, and fallback
// otherwise: a wrapper that only adds what failed keeps the specific code
// of the failure beneath it (Code reads the outermost one; RATIONALE.md,
// "Why does errcode.Code return the outermost code ...").
func WrapKeep(fallback string, err error, format string, args ...any) *Error {
	code := Code(err)
	if code == "" {
		code = fallback
	}
	return Wrap(code, err, format, args...)
}

// At sets Where and returns e.
func (e *Error) At(where string) *Error { e.Where = where; return e }

// WithHint sets Hint and returns e.
func (e *Error) WithHint(format string, args ...any) *Error {
	e.Hint = fmt.Sprintf(format, args...)
	return e
}

// Error formats "where: msg: cause", without code or hint (Format adds them).
func (e *Error) Error() string {
	var b strings.Builder
	if e.Where != "" {
		b.WriteString(e.Where)
		b.WriteString(": ")
	}
	b.WriteString(e.Msg)
	if e.Err != nil {
		if e.Msg != "" {
			b.WriteString(": ")
		}
		b.WriteString(e.Err.Error())
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Code returns the code of the first *Error in err's chain, or "" if none.
func Code(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// Is reports whether err carries code.
func Is(err error, code string) bool { return err != nil && Code(err) == code }

// Format renders err for a terminal the way murmur does:
// "error[CODE]: message" and, when there is one, "  hint: ..." on a second line.
func Format(err error) string { return render("error", err) }

// FormatWarning renders err as a warning, the way murmur prints its own:
// "warning[CODE]: message" and the hint line, or "warning: message" when
// err carries no code. A finding is an error or a warning by which of the
// two prints it, never both ("warning: error[CODE]").
func FormatWarning(err error) string { return render("warning", err) }

// render is Format and FormatWarning: level is "error" or "warning".
func render(level string, err error) string {
	var e *Error
	s := level + ": " + err.Error()
	if errors.As(err, &e) && e.Code != "" {
		s = fmt.Sprintf("%s[%s]: %s", level, e.Code, err.Error())
	}
	if h := hint(err); h != "" {
		s += "\n  hint: " + h
	}
	return s
}

// hint is the hint of the outermost *Error in err's chain that has one: a
// wrapper that only says what failed ("tool 'x'") keeps the hint of the
// failure beneath it.
func hint(err error) string {
	for err != nil {
		var e *Error
		if !errors.As(err, &e) {
			return ""
		}
		if e.Hint != "" {
			return e.Hint
		}
		err = e.Err
	}
	return ""
}
