package check

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
)

// ReadJournal reads a client's journal (swiftpaxos -run client -journal):
// the history records of a client process written as it goes, so that a
// client killed with kill -9 still leaves its history. Each operation has
// a pending record (ok false, no result) written before the operation was
// sent, then possibly a second record once it ended, with the same
// command and invocation instant and its result (or ok false again: it
// failed with an unknown outcome). The last line may be cut short by the
// kill, and is then ignored. The history returned has one record per
// operation, the last one, in the order they were invoked: an operation
// the kill interrupted stays pending, its effect unknown, as doc.go's
// History records says the checker takes it.
func ReadJournal(r io.Reader, name string) ([]Op, error) {
	var ops []Op
	at := map[OpID]int{}
	ended := map[OpID]bool{}
	err := readLines(r, name, true, func(dec *json.Decoder) error {
		var o Op
		if err := dec.Decode(&o); err != nil {
			return err
		}
		i, seen := at[o.ID()]
		switch {
		case !seen && o.OK:
			return fmt.Errorf("%s completes before its pending record", o.ID())
		case !seen:
			at[o.ID()] = len(ops)
			ops = append(ops, o)
		case ended[o.ID()]:
			return fmt.Errorf("%s has a third record", o.ID())
		case !reflect.DeepEqual(commandOf(o), commandOf(ops[i])):
			return fmt.Errorf("%s ends with another command or invocation instant than its pending record", o.ID())
		default:
			ops[i], ended[o.ID()] = o, true
		}
		return nil
	})
	return ops, err
}

// ReadJournalFile reads the journal at path (see ReadJournal).
func ReadJournalFile(path string) ([]Op, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ReadJournal(f, path)
}

// commandOf is o without its outcome: what the client sent, and when.
func commandOf(o Op) Op {
	o.Ret, o.Found, o.FoundUnknown, o.Applied, o.Err = "", false, false, false, ""
	o.Items, o.More, o.Through = nil, false, ""
	o.ReturnNS, o.OK, o.Path = 0, false, ""
	return o
}
