package config

import (
	"bufio"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxLine bounds one line of a configuration or latency file; anything
// longer is certainly not a hand-edited setting.
const maxLine = 64 * 1024

// Load reads, parses and validates the configuration file at path. A
// latencyFile it names is read relative to path's directory. A path that
// names no readable file (missing, a directory) gives an *os.PathError;
// a file with problems an *Errors.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// A directory opens, and would be reported as a file of no lines.
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &os.PathError{Op: "open", Path: path, Err: errIsDir}
	}
	return Parse(path, f)
}

var errIsDir = errors.New("is a directory, not a configuration file")

// Parse parses and validates a configuration read from r. name is used in
// messages and locates a relative latencyFile (relative to its directory).
// On failure the error is an *Errors listing every problem.
func Parse(name string, r io.Reader) (*Config, error) {
	return parse(name, r, func(path string) (io.ReadCloser, error) { return os.Open(path) })
}

// opener lets tests and the fuzz target keep latencyFile away from the disk.
type opener func(path string) (io.ReadCloser, error)

func parse(name string, r io.Reader, open opener) (*Config, error) {
	p := &parser{
		file: name,
		cfg: &Config{
			file:      name,
			perAlias:  map[string][]setting{},
			applyLine: map[string]int{},
			proxy:     map[string]binding{},
		},
		seen:    map[scopedKey]int{},
		aliases: map[string]int{},
	}
	eachLine(name, r, &p.errs, p.line)
	p.finishReplicas()

	c := p.cfg
	c.Params, _ = build(c.global)
	if c.LatencyFile != "" {
		c.Latency = p.loadLatency(c.LatencyFile, open)
	}
	if c.TLS != "" {
		c.TLSDir = relativeTo(name, c.TLS)
	}
	if c.DataDir != "" {
		c.DataPath = relativeTo(name, c.DataDir)
	}
	if err := c.Validate(); err != nil {
		var es *Errors
		if errors.As(err, &es) {
			p.errs.merge(es)
		}
	}
	if err := p.errs.err(); err != nil {
		return nil, err
	}
	return c, nil
}

// eachLine calls fn with every line of r and its 1-based number, recording
// a read failure (such as an over-long line) as an issue.
func eachLine(name string, r io.Reader, errs *Errors, fn func(n int, text string)) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxLine)
	n := 0
	for sc.Scan() {
		n++
		fn(n, sc.Text())
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			errs.add(name, n+1, "line longer than %d bytes", maxLine)
			return
		}
		errs.add(name, n+1, "read error: %v", err)
	}
}

// tokens splits a line on blanks and drops a trailing "//" comment. A
// comment starts at a token beginning with "//", so a path such as
// a/b//c stays whole.
func tokens(line string) []string {
	f := strings.Fields(line)
	for i, t := range f {
		if strings.HasPrefix(t, "//") {
			return f[:i]
		}
	}
	return f
}

func lower(s string) string { return strings.ToLower(s) }

type section int

const (
	secTop section = iota // before any header or after "---"
	secReplicas
	secClients
	secMaster
	secProxy
	secApply
)

// scopedKey identifies a key within one scope: "" for global lines, else
// the alias of an "-- Apply to" block.
type scopedKey struct {
	scope string
	key   string
}

type parser struct {
	file string
	errs Errors
	cfg  *Config

	sec     section
	applyTo string // alias of the current "-- Apply to" block
	server  string // current server_alias of the Proxy section

	seen     map[scopedKey]int // first line of each key per scope
	aliases  map[string]int    // first line of each host alias
	replicas []Host            // replica host lines, in file order
}

func (p *parser) errorf(line int, format string, args ...any) {
	p.errs.add(p.file, line, format, args...)
}

func (p *parser) line(n int, text string) {
	toks := tokens(text)
	switch {
	case len(toks) == 0:
	case len(toks) == 1 && isRule(toks[0]):
		p.sec, p.applyTo, p.server = secTop, "", ""
	case strings.HasPrefix(toks[0], "--"):
		p.header(n, toks)
	case strings.Contains(toks[0], ":"):
		// Checked before host lines so that a misplaced or misspelt key in a
		// host section is reported, not taken for a host (PROTOCOL.md 7.1 Δ).
		p.keyLine(n, toks)
	case p.sec == secReplicas || p.sec == secClients:
		p.hostLine(n, toks)
	case p.sec == secMaster:
		// No master process exists; old files keep their master line.
	case p.sec == secProxy:
		p.proxyLine(n, toks)
	default:
		p.errorf(n, "unexpected line %q: expected \"key: value\" or a section header", strings.Join(toks, " "))
	}
}

// isRule reports whether t is the "---" line that closes a Proxy section.
func isRule(t string) bool {
	return len(t) >= 3 && strings.Trim(t, "-") == ""
}

func (p *parser) header(n int, toks []string) {
	text := strings.Join(toks, " ")
	inner := strings.TrimPrefix(text, "--")
	inner = strings.TrimSuffix(inner, "--")
	words := strings.Fields(lower(inner))
	p.sec, p.applyTo, p.server = secTop, "", ""
	switch {
	case len(words) == 1 && words[0] == "replicas":
		p.sec = secReplicas
	case len(words) == 1 && words[0] == "clients":
		p.sec = secClients
	case len(words) == 1 && words[0] == "master":
		p.sec = secMaster
	case len(words) == 1 && words[0] == "proxy":
		p.sec = secProxy
	case len(words) == 3 && words[0] == "apply" && words[1] == "to":
		p.sec, p.applyTo = secApply, words[2]
		if _, ok := p.cfg.applyLine[words[2]]; !ok {
			p.cfg.applyLine[words[2]] = n
		}
	default:
		p.errorf(n, "unknown section header %q (want -- Replicas --, -- Clients --, -- Master --, -- Proxy -- or -- Apply to <alias> --)", text)
	}
}

func (p *parser) keyLine(n int, toks []string) {
	// "key: value" is the documented form; "key:value" is accepted too.
	key, rest, _ := strings.Cut(toks[0], ":")
	values := toks[1:]
	switch {
	case strings.HasPrefix(rest, "//"):
		// "key://..." is "key: //...": a comment, as in a line's other
		// tokens, so the value is missing.
		values = nil
	case rest != "":
		values = append([]string{rest}, values...)
	}
	if key == "" {
		p.errorf(n, "missing key before ':'")
		return
	}
	spec, ok := lookupKey(key)
	if !ok {
		p.errorf(n, "unknown key %q", key)
		return
	}
	scope := ""
	if p.sec == secApply {
		scope = p.applyTo
	}
	sk := scopedKey{scope, spec.name}
	if first, dup := p.seen[sk]; dup {
		p.errorf(n, "%s: given twice (first at line %d)", spec.name, first)
		return
	}
	p.seen[sk] = n
	if sk == (scopedKey{"", "protocol"}) {
		p.cfg.protocolLine = true
	}
	if scope != "" && spec.global {
		p.errorf(n, "%s: cannot be set in -- Apply to %s --: every process must use the same value", spec.name, scope)
		return
	}
	switch len(values) {
	case 0:
		p.errorf(n, "%s: missing value", spec.name)
		return
	case 1:
	default:
		p.errorf(n, "%s: unexpected %q after value %q (only a // comment may follow)", spec.name, values[1], values[0])
		return
	}
	v := values[0]
	if !spec.keepCase {
		v = lower(v)
	}
	scratch := Default()
	if err := spec.set(&scratch, v); err != nil {
		p.errorf(n, "%s: %v", spec.name, err)
		return
	}
	if spec.warn != nil {
		if w := spec.warn(&scratch); w != "" {
			p.cfg.Warnings = append(p.cfg.Warnings, Issue{File: p.file, Line: n, Msg: w})
		}
	}
	s := setting{spec: spec, value: v, line: n}
	if scope == "" {
		p.cfg.global = append(p.cfg.global, s)
	} else {
		p.cfg.perAlias[scope] = append(p.cfg.perAlias[scope], s)
	}
}

// loadLatency reads the latency file named by the latencyFile key,
// relative to the configuration file's directory.
func (p *parser) loadLatency(path string, open opener) *Latency {
	line := p.seen[scopedKey{"", "latencyFile"}]
	path = relativeTo(p.file, path)
	f, err := open(path)
	if err != nil {
		p.errorf(line, "latencyFile: %v", err)
		return nil
	}
	defer f.Close()
	l, err := ParseLatency(path, f)
	if err != nil {
		var es *Errors
		if errors.As(err, &es) {
			p.errs.merge(es)
		} else {
			p.errorf(line, "latencyFile: %v", err)
		}
		return nil
	}
	return l
}

// relativeTo resolves a path named in the file conf: a relative path is
// relative to conf's directory, so the file works from any directory.
func relativeTo(conf, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(filepath.Dir(conf), path)
}
