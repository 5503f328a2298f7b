package bench

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

// RunHistories reads the histories of a run directory: every
// history-ALIAS.jsonl, and for a client the launcher killed (killed)
// that left none, its journal (journal-ALIAS.jsonl), with the operations
// the kill interrupted pending. crashed holds the killed clients'
// sessions; found is false when the run recorded no history at all (a
// run without --check).
func RunHistories(dir string, killed []string) (ops []check.Op, crashed map[check.SessionID]bool, found bool, err error) {
	hs, _ := filepath.Glob(filepath.Join(dir, "history-*.jsonl"))
	found = len(hs) > 0
	crashed = map[check.SessionID]bool{}
	for _, a := range killed {
		if _, err := os.Stat(filepath.Join(dir, "history-"+a+".jsonl")); err == nil {
			continue // it wrote its history before the kill
		}
		j, err := check.ReadJournalFile(filepath.Join(dir, "journal-"+a+".jsonl"))
		if errors.Is(err, fs.ErrNotExist) {
			continue // no journal either: a run without --check
		}
		if err != nil {
			return nil, nil, false, err
		}
		for _, o := range j {
			crashed[o.Session] = true
		}
		ops, found = append(ops, j...), true
	}
	for _, p := range hs {
		h, err := check.ReadHistoryFile(p)
		if err != nil {
			return nil, nil, false, err
		}
		ops = append(ops, h...)
	}
	return ops, crashed, found, nil
}

// checkRun runs the checker over the histories and applied logs of dir
// (RunHistories: a killed client's journal stands for its history, and
// its sessions count as crashed ones, check.Options.Crashed, as a
// simulated client crash's do).
func checkRun(dir string, killed []string) (checked, error) {
	ops, crashed, found, err := RunHistories(dir, killed)
	if err != nil || !found {
		return checked{}, err
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
