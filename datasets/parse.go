package datasets

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/murmur-nexus/murmur-eval/errcode"
)

// maxReported is how many bad lines one error lists before "... and N more".
const maxReported = 20

// lineHint shows the line format; most line errors end with it.
const lineHint = `each line is one JSON object: {"case_id": "add-1", "task_path": "tasks/add.md"} ` +
	`or {"case_id": "add-1", "task": "What is 6*7?"}`

// bom is the UTF-8 byte order mark some editors put at the start of a file.
const bom = "\xef\xbb\xbf"

// parse reads the dataset lines of r and returns its cases. name is the
// dataset's name in error locations ("cases.jsonl:14"). A relative
// task_path is joined to baseDir. checkTask, when not nil, is called with
// every joined task path and says where ReadTask is to read it (see
// taskFiles.check); its error makes that line bad. Every bad line is
// reported (see the package doc); a dataset without cases is E-IO-003; a
// read failure is E-IO-003.
func parse(name string, r io.Reader, baseDir string, checkTask func(string) (root, rel string, err error)) ([]Case, error) {
	var cases []Case
	err := parseWith(parser{name: name, baseDir: baseDir, checkTask: checkTask}, r, func(c Case, _ []byte, _ int64) *errcode.Error {
		cases = append(cases, c)
		return nil
	})
	return cases, err
}

// parseWith is parse with every check of p (checkWorkspace too), handing
// each good case to keep with its line's bytes (the byte order mark
// removed, the line ending kept) and their offset in r. An error from keep
// makes that line bad. Nothing is kept here: Load keeps an index of the
// lines, not the cases (index.go).
func parseWith(p parser, r io.Reader, keep func(c Case, line []byte, off int64) *errcode.Error) error {
	name := p.name
	p.seen = map[string]int{}
	br := bufio.NewReader(r) // ReadBytes has no line-length limit, unlike bufio.Scanner
	var off int64
	good := 0
	for n := 1; ; n++ {
		line, rerr := br.ReadBytes('\n')
		start := off
		off += int64(len(line))
		if n == 1 && bytes.HasPrefix(line, []byte(bom)) {
			line, start = line[len(bom):], start+int64(len(bom))
		}
		if len(bytes.TrimSpace(line)) > 0 {
			c, err := p.parseLine(line, n)
			if err == nil {
				err = keep(c, line, start)
			}
			if err != nil {
				where := fmt.Sprintf("%s:%d", name, n)
				if err.Where != "" { // a field's error: file:line:field
					where += ":" + err.Where
				}
				p.report(err.At(where))
			} else {
				good++
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return errcode.Wrap(errcode.IO, rerr, "cannot read dataset after line %d", n-1).At(name)
		}
	}
	if err := p.err(); err != nil {
		return err
	}
	if good == 0 {
		return errcode.New(errcode.IO, "dataset has no cases").At(name).
			WithHint("add one JSON object per line; %s", lineHint)
	}
	return nil
}

// parser holds the state that spans lines: ids seen and errors so far.
type parser struct {
	name    string
	baseDir string
	// workDir, when set, is murmur's base for a relative task_path that is
	// not found from baseDir: the process's working directory.
	workDir string
	// fromWorkDir says the last task() found its file from workDir.
	fromWorkDir bool
	checkTask   func(string) (root, rel string, err error)
	// checkWorkspace, when not nil, resolves and checks a workspace path
	// (taskFiles.checkWorkspace).
	checkWorkspace func(string) (resolved, kind string, err error)
	seen           map[string]int // case_id → line of its first occurrence; nil: not checked (Dataset.Case)
	bad            []error
	more           int // bad lines beyond maxReported
}

func (p *parser) report(e *errcode.Error) {
	if len(p.bad) < maxReported {
		p.bad = append(p.bad, e)
	} else {
		p.more++
	}
}

// err returns the bad lines as one error: the *errcode.Error itself for one,
// errors.Join of them for several (errcode.Code finds the first either way).
func (p *parser) err() error {
	switch {
	case len(p.bad) == 0:
		return nil
	case len(p.bad) == 1:
		return p.bad[0]
	}
	errs := p.bad
	if p.more > 0 {
		errs = append(errs, errcode.New(errcode.EvalDataset, "... and %d more bad lines", p.more).At(p.name))
	}
	return errors.Join(errs...)
}

// parseLine turns one non-blank line into a Case; n is its line number.
func (p *parser) parseLine(line []byte, n int) (Case, *errcode.Error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(line, &obj); err != nil {
		var v any
		if json.Unmarshal(line, &v) == nil { // valid JSON, just not an object
			return Case{}, errcode.New(errcode.EvalDataset, "line is a JSON %s, not an object", kind(bytes.TrimSpace(line))).
				WithHint("%s", lineHint)
		}
		return Case{}, errcode.Wrap(errcode.EvalDataset, err, "invalid JSON").WithHint("%s", lineHint)
	}
	if obj == nil { // the line is `null`
		return Case{}, errcode.New(errcode.EvalDataset, "line is a JSON null, not an object").WithHint("%s", lineHint)
	}
	c := Case{Line: n}
	id, err := p.caseID(obj, n)
	if err != nil {
		return Case{}, err
	}
	c.ID = id
	if c.Task, c.TaskPath, c.taskRoot, c.taskRel, err = p.task(obj, id); err != nil {
		return Case{}, err
	}
	c.TaskFromWorkingDir = p.fromWorkDir
	if c.Workspace, c.WorkspaceKind, err = p.workspace(obj, id); err != nil {
		return Case{}, err
	}
	if c.Setup, err = setupField(obj, id); err != nil {
		return Case{}, err
	}
	if raw, ok := obj["expected"]; ok && string(raw) != "null" {
		c.Expected = raw
	}
	return c, nil
}

// caseID validates case_id and records its first line.
func (p *parser) caseID(obj map[string]json.RawMessage, n int) (string, *errcode.Error) {
	id, present, err := stringField(obj, "case_id")
	switch {
	case err != nil:
		return "", err.WithHint("case_id is a string such as \"add-1\"")
	case !present:
		return "", errcode.New(errcode.EvalDataset, `missing "case_id"`).
			WithHint(`give every case a unique, non-blank "case_id"`)
	case strings.TrimSpace(id) == "":
		return "", errcode.New(errcode.EvalDataset, `"case_id" is blank`).
			WithHint(`give every case a unique, non-blank "case_id"`)
	}
	if p.seen == nil { // a line read again, checked for duplicates at load
		return id, nil
	}
	if first, dup := p.seen[id]; dup {
		return "", errcode.New(errcode.EvalDataset, "duplicate case_id %q (first used on line %d)", id, first).
			WithHint("case ids must be unique within a dataset; rename one of the two")
	}
	p.seen[id] = n
	return id, nil
}

// task validates task and task_path; it returns the inline text, or the
// joined task path with where ReadTask reads it (root, rel).
func (p *parser) task(obj map[string]json.RawMessage, id string) (text, path, root, rel string, _ *errcode.Error) {
	p.fromWorkDir = false
	text, hasText, err := stringField(obj, "task")
	if err != nil {
		return "", "", "", "", err.WithHint(`"task" is the task text itself, as a JSON string`)
	}
	given, hasPath, err := stringField(obj, "task_path")
	if err != nil {
		return "", "", "", "", err.WithHint(`"task_path" is the path of a task file, relative to the dataset's folder`)
	}
	switch {
	case hasText && hasPath:
		return "", "", "", "", errcode.New(errcode.EvalDataset, `case %q has both "task" and "task_path"`, id).
			WithHint(`keep one: "task" for inline text or "task_path" for a file`)
	case !hasText && !hasPath:
		return "", "", "", "", errcode.New(errcode.EvalDataset, `case %q has neither "task" nor "task_path"`, id).
			WithHint(`add "task_path": "tasks/<file>.md" (relative to the dataset's folder) or an inline "task": "..."`)
	case hasText:
		if strings.TrimSpace(text) == "" {
			return "", "", "", "", errcode.New(errcode.EvalDataset, `case %q: "task" is blank`, id).
				WithHint("write the task text, or point task_path at a task file")
		}
		return text, "", "", "", nil
	}
	if strings.TrimSpace(given) == "" {
		return "", "", "", "", errcode.New(errcode.EvalDataset, `case %q: "task_path" is blank`, id).
			WithHint(`"task_path" names a task file, relative to the dataset's folder`)
	}
	path = given
	if !filepath.IsAbs(given) {
		path = filepath.Join(p.baseDir, given)
	}
	if p.checkTask == nil {
		return "", path, "", "", nil
	}
	root, rel, cerr := p.checkTask(path)
	if errors.Is(cerr, fs.ErrNotExist) && !filepath.IsAbs(given) && p.workDir != "" && p.workDir != p.baseDir {
		// murmur reads task_path from the working directory: a dataset
		// written for `mur eval run` runs unchanged. The file must still lie
		// inside the dataset's folder unless files outside are allowed.
		if wpath := filepath.Join(p.workDir, given); fileExists(wpath) {
			path, p.fromWorkDir = wpath, true
			root, rel, cerr = p.checkTask(path)
		}
	}
	var outside *outsideError
	switch {
	case cerr == nil:
		return "", path, root, rel, nil
	case errors.As(cerr, &outside) && p.fromWorkDir:
		return "", "", "", "", errcode.New(errcode.EvalDataset, `case %q: "task_path" %q (found from the working directory %s, as murmur reads it) %s %s`, id, given, p.workDir, outside.Error(), p.baseDir).
			WithHint("move the task file into %s, or pass --allow-task-outside-dataset (env MURMUR_EVAL_ALLOW_TASK_OUTSIDE_DATASET=true) if you trust this dataset to name files anywhere", p.baseDir)
	case errors.As(cerr, &outside):
		return "", "", "", "", errcode.New(errcode.EvalDataset, `case %q: "task_path" %q %s %s`, id, given, outside.Error(), p.baseDir).
			WithHint("move the task file into %s, or pass --allow-task-outside-dataset (env MURMUR_EVAL_ALLOW_TASK_OUTSIDE_DATASET=true) if you trust this dataset to name files anywhere", p.baseDir)
	case errors.Is(cerr, fs.ErrNotExist):
		hint := fmt.Sprintf("task_path %q is resolved relative to the dataset's folder %s", given, p.baseDir)
		if p.workDir != "" && p.workDir != p.baseDir && !filepath.IsAbs(given) {
			hint += ", then to the working directory " + p.workDir
		}
		return "", "", "", "", errcode.New(errcode.EvalDataset, "case %q: task file not found: %s", id, path).
			WithHint("%s", hint)
	}
	return "", "", "", "", errcode.Wrap(errcode.EvalDataset, cerr, `case %q: "task_path": unusable task file %s`, id, path).
		WithHint("task_path must name a readable regular file")
}

// stringField returns obj[key] as a string and whether the key is present;
// a present value that is not a JSON string is an error.
func stringField(obj map[string]json.RawMessage, key string) (string, bool, *errcode.Error) {
	raw, ok := obj[key]
	if !ok {
		return "", false, nil
	}
	var s string
	if len(raw) == 0 || raw[0] != '"' || json.Unmarshal(raw, &s) != nil {
		return "", true, errcode.New(errcode.EvalDataset, "%q must be a string, got %s", key, kind(raw))
	}
	return s, true, nil
}

// kind names the JSON type of a valid JSON value.
func kind(raw []byte) string {
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// fileExists reports whether anything is at path (a link is followed).
func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
