package client

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"swiftpaxos/check"
)

// checked is what the checker made of a run: the summary's verdict, the
// report it came from and the histories it read.
type checked struct {
	json   CheckJSON
	report check.Report
	ops    []check.Op
}

// checkRun runs the checker over the histories and applied logs of dir.
// A client the launcher killed (killed) left no history file: its
// journal (journal-ALIAS.jsonl) stands for it, with the operations the
// kill interrupted pending, and its sessions count as crashed ones
// (check.Options.Crashed), as a simulated client crash's do.
func checkRun(dir string, killed []string) (checked, error) {
	hs, _ := filepath.Glob(filepath.Join(dir, "history-*.jsonl"))
	var ops []check.Op
	sources := len(hs)
	crashed := map[check.SessionID]bool{}
	for _, a := range killed {
		h := filepath.Join(dir, "history-"+a+".jsonl")
		if _, err := os.Stat(h); err == nil {
			continue // it wrote its history before the kill
		}
		j, err := check.ReadJournalFile(filepath.Join(dir, "journal-"+a+".jsonl"))
		if errors.Is(err, fs.ErrNotExist) {
			continue // no journal either: a run without --check
		}
		if err != nil {
			return checked{}, err
		}
		for _, o := range j {
			crashed[o.Session] = true
		}
		ops = append(ops, j...)
		sources++
	}
	if sources == 0 {
		return checked{}, nil
	}
	for _, p := range hs {
		h, err := check.ReadHistoryFile(p)
		if err != nil {
			return checked{}, err
		}
		ops = append(ops, h...)
	}
	if len(ops) == 0 {
		return checked{json: CheckJSON{Ran: true, First: []string{"history-*.jsonl: " + check.ErrNoOperations.Error()}}}, nil
	}
	logs := make(map[string][]check.LogEntry)
	ls, _ := filepath.Glob(filepath.Join(dir, "log-*.jsonl"))
	for _, p := range ls {
		l, err := check.ReadLogFile(p)
		if err != nil {
			return checked{}, err
		}
		logs[strings.TrimSuffix(strings.TrimPrefix(filepath.Base(p), "log-"), ".jsonl")] = l
	}
	r := check.Check(ops, logs, check.Options{VisualizeDir: dir, Crashed: crashed})
	c := CheckJSON{Ran: true, OK: r.OK(), Violations: len(r.Violations), Checked: r.Checked, Unknown: len(r.Unknown)}
	for i, v := range r.Violations {
		if i == maxShown {
			break
		}
		c.First = append(c.First, v.Message)
	}
	return checked{json: c, report: r, ops: ops}, nil
}

// maxShown is how many violations the summary quotes.
const maxShown = 5
