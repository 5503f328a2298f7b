package config

import (
	"fmt"
	"strings"
)

// MaxIssues is how many problems an Errors keeps and prints; the others
// are only counted. A file that is no configuration at all (binary
// garbage) has a problem on nearly every line, and thousands of lines of
// quoted garbage help nobody: the first screenful says what is wrong.
const MaxIssues = 20

// maxQuoted bounds the length of a user-supplied string quoted in a
// message, and maxMsg the length of a whole message, for the same reason:
// a line of garbage can be 64 KiB long.
const (
	maxQuoted = 80
	maxMsg    = 400
)

// Issue is one problem (or warning) found in a configuration or latency
// file. Line is 1-based; 0 means the problem belongs to the file as a whole
// (for example the replica count), and the text then omits the line.
type Issue struct {
	File string
	Line int
	Msg  string
}

// String formats the issue as "FILE:LINE: message" (or "FILE: message"),
// the form editors and terminals turn into a jump target.
func (i Issue) String() string {
	if i.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", i.File, i.Line, i.Msg)
	}
	return fmt.Sprintf("%s: %s", i.File, i.Msg)
}

// Errors is the problems found in one file. Parsing never stops at the
// first problem, so a user fixes a broken file in one edit instead of one
// run per mistake; but only the first MaxIssues are kept, and More counts
// the rest.
type Errors struct {
	Issues []Issue
	More   int
}

// Error joins the issues, one per line, in the order they were found, and
// ends with "and N more" when some were only counted.
func (e *Errors) Error() string {
	lines := make([]string, len(e.Issues), len(e.Issues)+1)
	for i, is := range e.Issues {
		lines[i] = is.String()
	}
	if e.More > 0 {
		lines = append(lines, fmt.Sprintf("and %d more", e.More))
	}
	return strings.Join(lines, "\n")
}

// add records a problem. String arguments are user text (keys, values,
// whole lines) and are shortened before they are quoted.
func (e *Errors) add(file string, line int, format string, args ...any) {
	for i, a := range args {
		if s, ok := a.(string); ok {
			args[i] = clip(s, maxQuoted)
		}
	}
	e.push(Issue{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

// push keeps is if there is room, else counts it. A message is cut at
// maxMsg bytes: values quoted by the key parsers are not shortened by add.
func (e *Errors) push(is Issue) {
	if len(e.Issues) >= MaxIssues {
		e.More++
		return
	}
	is.Msg = clip(is.Msg, maxMsg)
	e.Issues = append(e.Issues, is)
}

// merge adds every problem of o, kept or counted.
func (e *Errors) merge(o *Errors) {
	for _, is := range o.Issues {
		e.push(is)
	}
	e.More += o.More
}

// err returns e as an error, or nil when there is nothing to report (a nil
// *Errors inside a non-nil error interface would be a trap for callers).
func (e *Errors) err() error {
	if len(e.Issues) == 0 {
		return nil
	}
	return e
}

// clip returns s cut to at most n bytes followed by "...", or s itself when
// it is short enough. The cut may split a UTF-8 sequence; %q shows the
// stray bytes as escapes.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "..."
}
