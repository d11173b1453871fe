package pin

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Options tunes LockFile, ApproveFile and Approve.
type Options struct {
	// Force lets LockFile replace an existing lock file. Without it
	// LockFile fails with ErrLockExists, because a new lock approves
	// everything the upstreams list now, including whatever the lock
	// holds quarantined; approve is the way to move an existing lock on.
	Force bool
	// Prefixes maps an upstream name to the prefix the gateway serves its
	// tools under, so that approve accepts the names clients see. An
	// upstream missing from the map has the default prefix "<upstream>__";
	// an empty prefix is allowed.
	Prefixes map[string]string
}

func (o Options) prefix(upstream string) string {
	if p, ok := o.Prefixes[upstream]; ok {
		return p
	}
	return upstream + "__"
}

// Summary says what LockFile or Approve did, for the CLI to print.
type Summary struct {
	// Path is the lock file written; empty when nothing was written.
	Path string
	// Approved holds the New and Changed tools now recorded in the lock.
	Approved []Result
	// Dropped holds the Removed tools deleted from the lock.
	Dropped []Result
	// Pinned counts the tools that were pinned already.
	Pinned int
	// Pending holds the tools still quarantined because approve was given
	// names and theirs was not among them.
	Pending []Result
	// Hidden holds the tools recorded (or pinned already) with hidden
	// characters: the gateway serves them as approved, so the CLI shows
	// each character for the operator to judge.
	Hidden []Result
	// Invalid holds the definitions that cannot be recorded.
	Invalid []Result
}

// String is the summary as the CLI prints it: a count line, then one
// line per tool that needs a reader's attention.
func (s Summary) String() string {
	var b strings.Builder
	where := s.Path
	if where == "" {
		where = "lock unchanged"
	}
	fmt.Fprintf(&b, "%s: %d approved, %d dropped, %d already pinned", where, len(s.Approved), len(s.Dropped), s.Pinned)
	if n := len(s.Pending); n > 0 {
		fmt.Fprintf(&b, ", %d still quarantined", n)
	}
	b.WriteByte('\n')
	line := func(verb string, r Result, why string) {
		fmt.Fprintf(&b, "  %-10s %s/%s", verb, r.Upstream, quoteInvisible(r.Tool))
		if why != "" {
			fmt.Fprintf(&b, ": %s", why)
		}
		b.WriteByte('\n')
	}
	for _, r := range s.Approved {
		why := "new"
		if r.Status == Changed {
			why = strings.Join(r.Changes, ", ")
		}
		line("approved", r, why)
	}
	for _, r := range s.Dropped {
		line("dropped", r, "no longer listed")
	}
	for _, r := range s.Pending {
		line("pending", r, r.Reason())
	}
	for _, r := range s.Hidden {
		line("hidden", r, "approved with "+r.hiddenReason())
	}
	for _, r := range s.Invalid {
		line("invalid", r, r.Err.Error())
	}
	return b.String()
}

// Approve returns a new lock that records the tools the upstreams list now
// and a summary of what changed; l itself is not modified (nil is an empty
// lock).
//
// tools maps every upstream in the gateway config to the tool objects of
// its tools/list result. An upstream the lock has but tools lacks counts
// as removed from the config, so a caller that fails to list an upstream
// must stop rather than leave it out.
//
// With no names, every New and Changed tool is recorded and every Removed
// tool (and every upstream no longer configured) is dropped. Otherwise
// only the named tools are: a name is "upstream/tool" or the namespaced
// name clients see (Options.Prefixes). A name that matches no tool listed
// or locked, or matches two, is an error, as is naming an Invalid tool;
// naming a pinned tool does nothing.
//
// Recording a tool lifts its quarantine for hidden characters too, for
// exactly that definition; such tools are listed in Summary.Hidden so that
// the operator sees each character.
func Approve(l *Lock, tools map[string][]json.RawMessage, names []string, opts Options) (*Lock, Summary, error) {
	var all []Result
	ups := map[string]bool{}
	for u := range tools {
		ups[u] = true
	}
	if l != nil {
		for u := range l.Upstreams {
			ups[u] = true
		}
	}
	for _, u := range sortedKeys(ups) {
		all = append(all, l.Check(u, tools[u])...)
	}

	chosen := make([]bool, len(all))
	if len(names) == 0 {
		for i := range all {
			chosen[i] = true
		}
	} else {
		for _, name := range names {
			i, err := resolve(all, name, opts)
			if err != nil {
				return nil, Summary{}, err
			}
			chosen[i] = true
		}
	}

	out := l.clone()
	for u := range tools {
		if out.Upstreams[u] == nil {
			out.Upstreams[u] = map[string]Entry{}
		}
	}
	var sum Summary
	for i, r := range all {
		switch {
		case r.Status == Invalid:
			sum.Invalid = append(sum.Invalid, r)
			continue
		case r.Status == Pinned:
			sum.Pinned++
		case !chosen[i]:
			if r.Status != Removed {
				sum.Pending = append(sum.Pending, r)
			}
			continue
		case r.Status == Removed:
			delete(out.Upstreams[r.Upstream], r.Tool)
			sum.Dropped = append(sum.Dropped, r)
		default: // New or Changed
			out.Upstreams[r.Upstream][r.Tool] = newEntry(r.def)
			sum.Approved = append(sum.Approved, r)
		}
		if len(r.Hidden) > 0 {
			sum.Hidden = append(sum.Hidden, r)
		}
	}
	for u, locked := range out.Upstreams {
		if _, configured := tools[u]; !configured && len(locked) == 0 {
			delete(out.Upstreams, u)
		}
	}
	return out, sum, nil
}

// resolve finds the one result a name given to approve means.
func resolve(all []Result, name string, opts Options) (int, error) {
	found := -1
	for i, r := range all {
		if r.Tool == "" {
			continue
		}
		if name != r.Upstream+"/"+r.Tool && name != opts.prefix(r.Upstream)+r.Tool {
			continue
		}
		if found >= 0 && !(all[found].Upstream == r.Upstream && all[found].Tool == r.Tool) {
			return 0, fmt.Errorf("approve %q: names both %s/%s and %s/%s; use upstream/tool", name,
				all[found].Upstream, all[found].Tool, r.Upstream, r.Tool)
		}
		if r.Status == Invalid {
			return 0, fmt.Errorf("approve %q: cannot be recorded: %s", name, r.Reason())
		}
		found = i
	}
	if found < 0 {
		return 0, fmt.Errorf("approve %q: no upstream lists such a tool and the lock does not have it (names are upstream/tool or the namespaced name)", name)
	}
	return found, nil
}

// LockFile writes a new lock file at path that pins every tool the
// upstreams list now; it is what `mcpgen-gateway lock` does. It refuses
// to replace an existing file (ErrLockExists) unless opts.Force is set,
// which the CLI sets for `lock --force`; even two runs at once cannot
// both create the file. The gateway pins tools only when its config
// names a lock file; without one it quarantines only hidden characters
// (Scan).
func LockFile(path string, tools map[string][]json.RawMessage, opts Options) (Summary, error) {
	l, sum, err := Approve(nil, tools, nil, opts)
	if err != nil {
		return Summary{}, err
	}
	if err := write(path, l, opts.Force); err != nil {
		return Summary{}, err
	}
	sum.Path = path
	return sum, nil
}

// ApproveFile reads the lock file at path, applies Approve and writes the
// result back atomically when it differs; it is what `mcpgen-gateway
// approve` does. A missing lock file is an error (see Read).
func ApproveFile(path string, tools map[string][]json.RawMessage, names []string, opts Options) (Summary, error) {
	l, err := Read(path)
	if err != nil {
		return Summary{}, err
	}
	next, sum, err := Approve(l, tools, names, opts)
	if err != nil {
		return Summary{}, fmt.Errorf("%s: %w", path, err)
	}
	before, err := l.Marshal()
	if err != nil {
		return Summary{}, err
	}
	after, err := next.Marshal()
	if err != nil {
		return Summary{}, err
	}
	if string(before) == string(after) {
		return sum, nil
	}
	if err := Write(path, next); err != nil {
		return Summary{}, err
	}
	sum.Path = path
	return sum, nil
}
