package config

import (
	"fmt"
	"strings"
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

// Errors is every problem found in one file. Parsing never stops at the
// first problem, so a user fixes a broken file in one edit instead of one
// run per mistake.
type Errors struct {
	Issues []Issue
}

// Error joins the issues, one per line, in the order they were found.
func (e *Errors) Error() string {
	lines := make([]string, len(e.Issues))
	for i, is := range e.Issues {
		lines[i] = is.String()
	}
	return strings.Join(lines, "\n")
}

func (e *Errors) add(file string, line int, format string, args ...any) {
	e.Issues = append(e.Issues, Issue{File: file, Line: line, Msg: fmt.Sprintf(format, args...)})
}

func (e *Errors) has(is Issue) bool {
	for _, x := range e.Issues {
		if x == is {
			return true
		}
	}
	return false
}

// err returns e as an error, or nil when there is nothing to report (a nil
// *Errors inside a non-nil error interface would be a trap for callers).
func (e *Errors) err() error {
	if len(e.Issues) == 0 {
		return nil
	}
	return e
}
