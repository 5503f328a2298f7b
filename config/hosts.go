package config

import (
	"net"
	"net/netip"
	"sort"
	"strconv"
	"strings"
)

// hostLine parses "<alias> <ip>[:port]" in a Replicas or Clients section.
func (p *parser) hostLine(n int, toks []string) {
	alias := lower(toks[0])
	switch {
	case len(toks) < 2:
		p.errorf(n, "host %q: missing IP address", alias)
		return
	case len(toks) > 2:
		p.errorf(n, "host %q: unexpected %q after address %q (only a // comment may follow)", alias, toks[2], toks[1])
		return
	}
	if first, dup := p.aliases[alias]; dup {
		p.errorf(n, "duplicate alias %q (first at line %d)", alias, first)
		return
	}
	p.aliases[alias] = n
	h := Host{Alias: alias, line: n}
	var portOK bool
	h.IP, h.Port, portOK = splitAddr(lower(toks[1]))
	if !portOK {
		p.errorf(n, "host %q: port in %q is not in 1..65535", alias, toks[1])
	}
	if p.sec == secClients {
		p.cfg.Clients = append(p.cfg.Clients, h)
	} else {
		p.replicas = append(p.replicas, h)
	}
}

// splitAddr splits "ip" or "ip:port" ("[v6]:port" for IPv6). A valid IP is
// returned in canonical form so that the same address written two ways
// compares equal; an invalid one is returned as written for Validate to
// report. portOK is false when a port is present but unusable.
func splitAddr(s string) (ip string, port int, portOK bool) {
	host, ps := s, ""
	if h, pstr, err := net.SplitHostPort(s); err == nil {
		host, ps = h, pstr
	}
	if a, err := netip.ParseAddr(host); err == nil {
		host = a.Unmap().String()
	}
	if ps == "" {
		return host, 0, true
	}
	n, err := strconv.Atoi(ps)
	if err != nil || n < 1 || n > 65535 {
		return host, 0, false
	}
	return host, n, true
}

// aliasIndex returns the number a replica alias ends in.
func aliasIndex(alias string) (int, bool) {
	digits := len(alias)
	for digits > 0 && alias[digits-1] >= '0' && alias[digits-1] <= '9' {
		digits--
	}
	if digits == len(alias) {
		return 0, false
	}
	i, err := strconv.Atoi(alias[digits:])
	if err != nil {
		return 0, false
	}
	return i, true
}

// finishReplicas orders the replicas by the index in their alias and gives
// each the default port 7070+i unless its line set one.
func (p *parser) finishReplicas() {
	type indexed struct {
		Host
		index int
	}
	var rs []indexed
	byIndex := map[int]Host{}
	for _, h := range p.replicas {
		i, ok := aliasIndex(h.Alias)
		if !ok {
			p.errorf(h.line, "replica alias %q does not end in its index (replica0, replica1, ...)", h.Alias)
			continue
		}
		if other, dup := byIndex[i]; dup {
			p.errorf(h.line, "replica %q has index %d, like %q (line %d)", h.Alias, i, other.Alias, other.line)
			continue
		}
		byIndex[i] = h
		if h.Port == 0 {
			h.Port = BaseReplicaPort + i
		}
		rs = append(rs, indexed{h, i})
	}
	sort.Slice(rs, func(a, b int) bool { return rs[a].index < rs[b].index })
	for _, r := range rs {
		p.cfg.Replicas = append(p.cfg.Replicas, r.Host)
	}
}

// proxyLine parses "server_alias <replica>" and "<client> [(local)]".
func (p *parser) proxyLine(n int, toks []string) {
	first := lower(toks[0])
	if first == "server_alias" {
		if len(toks) != 2 {
			p.errorf(n, "server_alias: want exactly one replica alias, got %q", strings.Join(toks[1:], " "))
			p.server = ""
			return
		}
		p.server = lower(toks[1])
		p.cfg.servers = append(p.cfg.servers, binding{server: p.server, line: n})
		return
	}
	colocated := false
	switch {
	case len(toks) == 2 && lower(toks[1]) == "(local)":
		colocated = true
	case len(toks) >= 2:
		p.errorf(n, "proxy client %q: unexpected %q (want \"(local)\" or nothing)", first, toks[1])
		return
	}
	if p.server == "" {
		p.errorf(n, "proxy client %q: no server_alias line before it", first)
		return
	}
	if b, dup := p.cfg.proxy[first]; dup {
		p.errorf(n, "proxy client %q: bound twice (first at line %d)", first, b.line)
		return
	}
	p.cfg.proxy[first] = binding{server: p.server, colocated: colocated, line: n}
}
