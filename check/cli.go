package check

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Exit codes of RunCommand.
const (
	ExitOK        = 0 // every check passed
	ExitViolation = 1 // a rule is broken, or something could not be checked
	ExitBadInput  = 2 // the input could not be read
)

// ErrNoOperations is the finding of a history that holds no operation at
// all: it breaks no rule, but passing it would pass a run whose clients
// recorded nothing.
var ErrNoOperations = errors.New("no operation recorded: an empty history proves nothing")

// RunCommand implements "swiftpaxos -run check -history PATH". PATH is a
// history file, or a directory holding history*.jsonl files (all read, in
// name order, as one history) and optional log-NAME.jsonl files (an
// applied log named NAME: a replica's, or one lifetime's of a restarted
// replica, such as log-replica2.2.jsonl; doc.go). It prints one line per finding on stdout,
// then "checked N operations: OK" or "checked N operations: M violations",
// and returns ExitOK, ExitViolation (also when the report lists undecided
// checks: a history is not known to be good until every check passed) or
// ExitBadInput (reporting the file and line of the bad record on stderr,
// or ErrNoOperations when the input holds no operation).
// porcupine's rendering of the conflict that makes a key fail
// linearizability is written to opts.VisualizeDir, by default the
// directory of PATH, and named in the violation's line.
func RunCommand(path string, opts Options, stdout, stderr io.Writer) int {
	h, logs, dir, err := readInput(path)
	if err != nil {
		fmt.Fprintf(stderr, "swiftpaxos: check: %v\n", err)
		return ExitBadInput
	}
	if len(h) == 0 {
		fmt.Fprintf(stderr, "swiftpaxos: check: %s: %v\n", path, ErrNoOperations)
		return ExitBadInput
	}
	if opts.VisualizeDir == "" {
		opts.VisualizeDir = dir
	}
	r := Check(h, logs, opts)
	for _, v := range r.Violations {
		fmt.Fprintln(stdout, v)
	}
	for _, u := range r.Unknown {
		fmt.Fprintln(stdout, u)
	}
	n := len(r.Violations)
	rules := slices.Collect(maps.Keys(r.Omitted))
	slices.SortFunc(rules, func(a, b Rule) int { return ruleRank[a] - ruleRank[b] })
	for _, rule := range rules {
		fmt.Fprintf(stdout, "[%s] ... %d more not shown\n", rule, r.Omitted[rule])
		n += r.Omitted[rule]
	}
	for _, s := range r.Skipped {
		fmt.Fprintln(stdout, s)
	}
	switch {
	case n == 0 && len(r.Unknown) == 0:
		fmt.Fprintf(stdout, "checked %d operations: OK\n", r.Checked)
		return ExitOK
	case len(r.Unknown) > 0:
		fmt.Fprintf(stdout, "checked %d operations: %d violations, %d undecided\n", r.Checked, n, len(r.Unknown))
	default:
		fmt.Fprintf(stdout, "checked %d operations: %d violations\n", r.Checked, n)
	}
	return ExitViolation
}

// readInput reads the history and logs at path (see RunCommand) and
// returns them with the directory the input came from.
func readInput(path string) ([]Op, map[string][]LogEntry, string, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, nil, "", err
	}
	if !info.IsDir() {
		h, err := ReadHistoryFile(path)
		return h, nil, filepath.Dir(path), err
	}
	histories, err := filepath.Glob(filepath.Join(path, "history*.jsonl"))
	if err != nil {
		return nil, nil, "", err
	}
	if len(histories) == 0 {
		return nil, nil, "", fmt.Errorf("%s: no history*.jsonl file in the directory", path)
	}
	var h []Op
	for _, f := range histories { // Glob sorts by name
		part, err := ReadHistoryFile(f)
		if err != nil {
			return nil, nil, "", err
		}
		h = append(h, part...)
	}
	logFiles, err := filepath.Glob(filepath.Join(path, "log-*.jsonl"))
	if err != nil {
		return nil, nil, "", err
	}
	logs := map[string][]LogEntry{}
	for _, f := range logFiles {
		name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "log-"), ".jsonl")
		if name == "" {
			return nil, nil, "", errors.New(f + ": the replica name (log-NAME.jsonl) is empty")
		}
		if logs[name], err = ReadLogFile(f); err != nil {
			return nil, nil, "", err
		}
	}
	return h, logs, path, nil
}
