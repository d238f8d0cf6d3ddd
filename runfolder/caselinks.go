package runfolder

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
	"github.com/murmur-nexus/murmur-eval/journal"
)

// CasesDir is the run folder's index of session folders by case: one
// symbolic link per case attempt, named after the case (CaseLinkName), to
// its session folder under sessions/. The session folders keep their
// session ids as names: a session folder's path is in the system prompt
// the model reads (murmur's "Workdir:"), and a case id there would tell the
// model what the dataset calls the case (RATIONALE.md, "Why are session
// folders found by case through links?").
const CasesDir = "cases"

// maxEscapedID bounds the escaped case id in a link's name (a file name
// holds 255 bytes); a longer one is cut and a hash of the whole id added.
const maxEscapedID = 180

// CaseLinkName is the name of the link to the session folder of a case's
// epoch and attempt: the case id escaped, then ".e<epoch>.a<attempt>"
// ("calc-multiply.e1.a1"). The escape keeps ASCII letters, digits, '-',
// '_' and '.' (not a leading one) and writes every other byte as %XX, so
// the name is one path element whatever the id holds (slashes, "..",
// spaces, newlines, unicode) and two ids never share it; an id that
// escapes past 180 bytes is cut there and ends in "~" and 16 hex digits
// of its SHA-256 ('~' never appears in an escaped id).
func CaseLinkName(caseID string, epoch, attempt int) string {
	return VariantLinkName(caseID, "", epoch, attempt)
}

// maxEscapedVariant bounds the escaped variant in a link's name, cut and
// hashed past it as a long case id is; maxEscapedIDBeside the escaped case
// id beside it: at most 116+17, '@' and 48+17 bytes before ".e<epoch>.a<attempt>",
// well within a file name's 255.
const (
	maxEscapedVariant  = 48
	maxEscapedIDBeside = 116
)

// VariantLinkName is CaseLinkName for a case of a run's variant: the
// variant, escaped as a case id is (cut and hashed past 48 bytes), after
// the case id and an '@', which an escaped id never holds
// ("calc-multiply@gpt-5-mini.e1.a1"); the case id is then cut past 116
// bytes, so the name stays one file name. No variant is CaseLinkName's
// name.
func VariantLinkName(caseID, variant string, epoch, attempt int) string {
	if variant == "" {
		return fmt.Sprintf("%s.e%d.a%d", EscapeCaseID(caseID), epoch, attempt)
	}
	return fmt.Sprintf("%s@%s.e%d.a%d", escapeCut(caseID, maxEscapedIDBeside), escapeCut(variant, maxEscapedVariant), epoch, attempt)
}

// EscapeCaseID is a case id as one file-name element, escaped as
// CaseLinkName escapes it (and cut the same way past 180 bytes): other
// files named by case, such as `murmur-eval view`'s pages, use it too.
func EscapeCaseID(caseID string) string { return escapeCut(caseID, maxEscapedID) }

// escapeCut is EscapeCaseID cut past limit bytes.
func escapeCut(caseID string, limit int) string {
	var b strings.Builder
	for i := 0; i < len(caseID); i++ {
		c := caseID[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.' && i > 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	esc := b.String()
	if len(esc) > limit {
		cut := limit
		for i := cut - 2; i < cut; i++ { // never split a %XX
			if esc[i] == '%' {
				cut = i
			}
		}
		sum := sha256.Sum256([]byte(caseID))
		esc = esc[:cut] + "~" + hex.EncodeToString(sum[:8])
	}
	return esc
}

// LinkCase links the case attempt's name under the run folder outDir's
// cases/ to its session folder sessionDir (under outDir), relative so the
// run folder can move. A link of the same name left by an earlier
// invocation is replaced. The name is checked to be one path element
// before anything is made.
func LinkCase(outDir, caseID, variant string, epoch, attempt int, sessionDir string) error {
	name := VariantLinkName(caseID, variant, epoch, attempt)
	if !filepath.IsLocal(name) || strings.ContainsAny(name, `/\`) {
		return errcode.New(errcode.Internal, "case link name %q is not one path element", name)
	}
	dir := filepath.Join(outDir, CasesDir)
	target, err := filepath.Rel(dir, sessionDir)
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "link case %q", caseID)
	}
	link := filepath.Join(dir, name)
	err = os.Symlink(target, link)
	if errors.Is(err, fs.ErrExist) {
		_ = os.Remove(link)
		err = os.Symlink(target, link)
	}
	if errors.Is(err, fs.ErrNotExist) { // a run folder made before cases/ existed
		if err = os.MkdirAll(dir, 0o755); err == nil {
			err = os.Symlink(target, link)
		}
	}
	if err != nil {
		return errcode.Wrap(errcode.IO, err, "link case %q", caseID)
	}
	return nil
}

// UnlinkCase removes the link of a case attempt (its session folder was
// removed: --keep-sessions, or the case made none).
func UnlinkCase(outDir, caseID, variant string, epoch, attempt int) {
	_ = os.Remove(filepath.Join(outDir, CasesDir, VariantLinkName(caseID, variant, epoch, attempt)))
}

// pruneLinks removes the links under outDir's cases/ whose session folder
// is gone.
func pruneLinks(outDir string) {
	dir := filepath.Join(outDir, CasesDir)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join(dir, e.Name())); errors.Is(err, fs.ErrNotExist) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}

// LinkRecords links each attempt of records whose session folder is kept
// under dir's cases/ (LinkCase), as a run links its own cases: for a
// folder merge or score writes from journal records. A relative session
// folder is taken beneath dir; an attempt whose folder is gone (not kept,
// or moved) is passed over. It links every attempt it can and returns the
// first failure (the rows still name every folder).
func LinkRecords(dir string, records []journal.Record) error {
	dirAbs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	var first error
	for _, r := range records {
		for _, a := range r.Attempts {
			res := a.Result
			if res.SessionDir == "" {
				continue
			}
			session := filepath.FromSlash(res.SessionDir)
			if !filepath.IsAbs(session) {
				session = filepath.Join(dirAbs, session)
			}
			if fi, err := os.Stat(session); err != nil || !fi.IsDir() {
				continue
			}
			if err := LinkCase(dirAbs, res.CaseID, deref(res.Variant), int(res.Epoch), int(res.Attempt), session); err != nil && first == nil {
				first = err
			}
		}
	}
	return first
}

// deref is a nullable column's value, "" for null.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
