package nemesis

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Verb is one thing the runner asks the launcher to do.
type Verb string

// The launcher's verbs. The runner writes one command per line on its
// standard output, "VERB ARG...", and reads one answer per command on its
// standard input: "ok", or "fail REASON". Arguments never hold blanks.
const (
	VerbKill       Verb = "kill"        // kill -9 replica ALIAS
	VerbStart      Verb = "start"       // start replica ALIAS again, with its alias and arguments
	VerbWipe       Verb = "wipe"        // empty the data directory of killed replica ALIAS
	VerbStop       Verb = "stop"        // SIGSTOP replica ALIAS
	VerbCont       Verb = "cont"        // SIGCONT replica ALIAS
	VerbCut        Verb = "cut"         // scripts/netem cut ARGS...
	VerbHeal       Verb = "heal"        // scripts/netem heal ARGS...
	VerbKillClient Verb = "kill-client" // kill -9 client ALIAS
	// The records of events.txt, stamped with the launcher's clock when
	// it reads them: a fault begins (before its action), ends (after its
	// heal), or is skipped.
	VerbBegin Verb = "begin" // ID KIND TARGET DETAIL
	VerbEnd   Verb = "end"   // ID
	VerbSkip  Verb = "skip"  // ID KIND REASON-WORDS...
)

// Command is one request to the launcher.
type Command struct {
	Verb Verb
	Args []string
}

func (c Command) String() string {
	return strings.Join(append([]string{string(c.Verb)}, c.Args...), " ")
}

// Hands carry out commands: the launcher, which owns the processes.
type Hands interface {
	// Do carries out c and returns when it is done; an error says why it
	// was not.
	Do(c Command) error
}

// ErrHandsGone: the launcher closed the runner's input.
var ErrHandsGone = errors.New("the launcher closed the connection")

// LineHands speak the line protocol over a pair of streams.
type LineHands struct {
	in  *bufio.Reader
	out io.Writer
}

// NewLineHands returns hands that write commands to out and read the
// answers from in.
func NewLineHands(in io.Reader, out io.Writer) *LineHands {
	return &LineHands{in: bufio.NewReader(in), out: out}
}

// Do sends c and waits for its answer.
func (h *LineHands) Do(c Command) error {
	for _, a := range c.Args {
		if a == "" || strings.ContainsAny(a, " \t\n") {
			return fmt.Errorf("%s: argument %q is empty or holds a blank", c.Verb, a)
		}
	}
	if _, err := fmt.Fprintln(h.out, c); err != nil {
		return fmt.Errorf("%s: %w", c.Verb, err)
	}
	line, err := h.in.ReadString('\n')
	if errors.Is(err, io.EOF) {
		return fmt.Errorf("%s: %w", c, ErrHandsGone)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", c, err)
	}
	line = strings.TrimSuffix(line, "\n")
	switch {
	case line == "ok":
		return nil
	case strings.HasPrefix(line, "fail "):
		return fmt.Errorf("%s: %s", c, strings.TrimPrefix(line, "fail "))
	}
	return fmt.Errorf("%s: the launcher answered %q, want ok or fail REASON", c, line)
}
