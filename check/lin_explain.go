package check

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"

	"swiftpaxos/kvs"
)

// explainConflict says in words why conflict k rules out every legal
// order, in terms of the windows of lops, and returns the operations
// involved, most relevant first.
func (x *history) explainConflict(lops []linOp, k linConflict) (string, []OpID) {
	if k.read >= 0 {
		r, w := lops[k.read], k.wA
		return fmt.Sprintf("%s read from %s, which was invoked only after the get returned; a get must be ordered after the put it reads",
			x.describe(r.op), x.describe(w)), x.ids(r.op, w)
	}
	if s := k.swap(); x.readableScore(lops, s) > x.readableScore(lops, k) {
		k = s
	}
	opOf := func(j int) int32 {
		if j < 0 {
			return srcNil
		}
		return lops[j].op
	}
	ops := x.ids(dedup(opOf(k.a2), k.wB, k.wA, opOf(k.a1), opOf(k.b1), opOf(k.b2))...)
	aFirst := "the initial NIL precedes every put"
	if k.a1 >= 0 {
		aFirst = x.retPhrase(lops, k.a1) + " before " + x.callPhrase(lops, k.b1)
	}
	if a2 := opOf(k.a2); a2 >= 0 && x.isRead(a2) {
		return fmt.Sprintf("%s read from %s, but %s must be ordered after that write and before the get, since %s, and %s before the get was invoked at %d",
			x.describe(a2), x.describeSrc(k.wA), x.describeSrc(k.wB), aFirst, x.retPhrase(lops, k.b2), lops[k.a2].call), ops
	}
	return fmt.Sprintf("%s and %s must each be ordered before the other together with the gets of its value (a get returns the latest put and values are unique): %s, and %s before %s",
		x.describeSrc(k.wA), x.describeSrc(k.wB), aFirst, x.retPhrase(lops, k.b2), x.callPhrase(lops, k.a2)), ops
}

// readableScore ranks the two ways of stating a conflict: best when a2 is
// a get ("it read a value that another put must precede") and B is a real
// put rather than the initial NIL.
func (x *history) readableScore(lops []linOp, k linConflict) int {
	score := 0
	if k.a2 >= 0 && x.isRead(lops[k.a2].op) {
		score += 2
	}
	if k.wB >= 0 {
		score++
	}
	return score
}

// retPhrase says why operation j of a cluster is over by its window's
// end: a put completed (or was read by a get that completed), a get of its
// value completed.
func (x *history) retPhrase(lops []linOp, j int) string {
	if j < 0 {
		return "the initial NIL precedes everything"
	}
	lo := lops[j]
	if x.isPut(lo.op) {
		return x.endPhrase(lo)
	}
	return fmt.Sprintf("%v, which returned %s, completed at %d", x.ops[lo.op].ID(), describeValue(x.ops[lo.op].Value), lo.ret)
}

// callPhrase says why operation j of a cluster cannot be ordered before
// its window's start.
func (x *history) callPhrase(lops []linOp, j int) string {
	lo := lops[j]
	if x.isPut(lo.op) {
		return x.startPhrase(lo)
	}
	return fmt.Sprintf("%v, which returned %s, was invoked at %d", x.ops[lo.op].ID(), describeValue(x.ops[lo.op].Value), lo.call)
}

// endPhrase says why a put is ordered before ret(lo): it completed, or a
// strong get read it and completed.
func (x *history) endPhrase(lo linOp) string {
	if lo.retBy == lo.op {
		return fmt.Sprintf("%v completed at %d", x.ops[lo.op].ID(), lo.ret)
	}
	return fmt.Sprintf("%v was read by %v, which completed at %d", x.ops[lo.op].ID(), x.ops[lo.retBy].ID(), lo.ret)
}

// startPhrase says why a put need not be ordered before call(lo): it, or
// its earliest strong reader, was invoked then.
func (x *history) startPhrase(lo linOp) string {
	if lo.callBy == lo.op {
		return fmt.Sprintf("%v was invoked at %d", x.ops[lo.op].ID(), lo.call)
	}
	return fmt.Sprintf("%v and all strong gets of it were invoked at or after %d", x.ops[lo.op].ID(), lo.call)
}

func dedup(is ...int32) []int32 {
	var out []int32
	for _, i := range is {
		if !slices.Contains(out, i) {
			out = append(out, i)
		}
	}
	return out
}

const (
	// maxVisualOps bounds the operations porcupine is given to render a
	// conflict: its search is exponential in the number of concurrent
	// operations (100 concurrent gets of one value take it seconds), and a
	// failing run may have many keys to render.
	maxVisualOps = 16
	// visualTimeout bounds porcupine's search for a rendering. Only the
	// rendering depends on it, never the verdict.
	visualTimeout = 2 * time.Second
)

// visualize writes porcupine's rendering of conflict k of key k and
// returns its path. It renders the two clusters in conflict (the puts
// and every strong get of their values), or only the operations the
// explanation names when the clusters are larger than maxVisualOps; any
// such set closed under reads-from is non-linearizable on its own. If
// porcupine does not finish within visualTimeout, the violation's message
// says the rendering was not written.
func (x *history) visualize(model porcupine.Model, lops []linOp, k linConflict, dir string, key kvs.Key) (string, error) {
	in := func(lo linOp) bool {
		w := lo.op
		if x.isRead(w) {
			w = x.src[w]
		}
		return w == k.wA || (k.read < 0 && w == k.wB)
	}
	var sub []linOp
	for _, lo := range lops {
		if in(lo) {
			sub = append(sub, lo)
		}
	}
	if len(sub) > maxVisualOps {
		sub = sub[:0]
		for j, lo := range lops {
			named := slices.Contains([]int{k.read, k.a1, k.b1, k.b2, k.a2}, j)
			if named || (x.isPut(lo.op) && (lo.op == k.wA || lo.op == k.wB)) {
				sub = append(sub, lo)
			}
		}
	}
	res, info := porcupine.CheckOperationsVerbose(model, x.porcupineOps(sub), visualTimeout)
	if res != porcupine.Illegal {
		return "", fmt.Errorf("porcupine did not confirm the conflict within %v", visualTimeout)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, "linearizability-key-"+fileSafe(key)+".html")
	if err := porcupine.VisualizePath(model, info, path); err != nil {
		return "", err
	}
	return path, nil
}

// porcupineOps converts linOps to porcupine's input, one client per
// session.
func (x *history) porcupineOps(lops []linOp) []porcupine.Operation {
	sessions := map[SessionID]int{}
	ops := make([]porcupine.Operation, len(lops))
	for j, lo := range lops {
		o := &x.ops[lo.op]
		client, ok := sessions[o.Session]
		if !ok {
			client = len(sessions)
			sessions[o.Session] = client
		}
		ops[j] = porcupine.Operation{
			ClientId: client,
			Input:    linInput{put: o.Kind == Put, value: o.Value},
			Output:   o.Value,
			Call:     lo.call,
			Return:   lo.ret,
			Metadata: lo.op,
		}
	}
	return ops
}

// fileSafe spells a key for a file name: letters, digits, '.', '_' and '-'
// as they are, any other byte as %XX, so that distinct keys get distinct
// names and no byte can leave the directory.
func fileSafe(k kvs.Key) string {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		c := k[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' && i > 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}
