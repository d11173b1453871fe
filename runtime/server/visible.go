package server

import (
	"container/list"
	"context"
	"slices"
	"strconv"
	"sync"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
)

// Per-caller visibility.
//
// A server in front of callers of different rights (a gateway applying
// authorization rules) shows each caller part of what is registered.
// SetVisibility gives the server a Visibility that decides, per caller
// and entry, whether the entry is Shown, Unlisted or Hidden:
//
//   - the lists (tools, prompts, resources, resource templates) hold the
//     entries Shown to the caller; they are filtered before they are cut
//     into pages, so pages stay full and cursors stay valid;
//   - a tools/call, prompts/get or resources/read that names an entry
//     Hidden from the caller is answered exactly as one that names nothing
//     registered, so a caller cannot probe for what it may not see; one
//     that names an Unlisted entry reaches the entry's handler, which says
//     why it refuses (a gateway's quarantined tool);
//   - 2026-07-28 list results are marked cacheScope private, whatever
//     Options.Caching says, since they differ from caller to caller.
//
// Deciding can cost (a rule language evaluated per entry), so the
// filtered lists are kept per view: callers for which the Visibility gives
// the same ViewKey see the same entries. A kept list is used while the
// registered list it was filtered from is unchanged, entry for entry, and
// until Views.Reset, which a Visibility whose decisions changed calls.

// EntryKind is the kind of a registered entry.
type EntryKind string

// The kinds of entries.
const (
	EntryTool     EntryKind = "tool"
	EntryPrompt   EntryKind = "prompt"
	EntryResource EntryKind = "resource"
	EntryTemplate EntryKind = "resource template"
)

// Entry is a registered tool, prompt, resource or resource template, as a
// Visibility decides on it.
type Entry struct {
	Kind EntryKind
	// Name is the tool's or prompt's name, the resource's URI, or the
	// template's URI template.
	Name string
	// Tool is the tool's definition, nil for other kinds. It is the
	// server's: a Visibility must not modify it.
	Tool *mcp.Tool
}

// Sight is what a caller sees of an entry.
type Sight uint8

// The sights.
const (
	// Shown entries are listed, and requests naming them are served.
	Shown Sight = iota
	// Unlisted entries are left out of lists; requests naming them reach
	// their handlers.
	Unlisted
	// Hidden entries are left out of lists, and requests naming them are
	// answered as if nothing by that name were registered.
	Hidden
)

// Visibility decides what each caller sees. Its methods are called
// concurrently, without the server's locks held, and must not register
// or remove entries of the server while they run.
type Visibility interface {
	// Sight decides what the caller of ctx sees of e.
	Sight(ctx context.Context, e Entry) Sight
	// ViewKey names the caller's view: callers with the same key must
	// get the same Sight of every entry, and the server keeps their
	// filtered lists under it. The key must change with everything
	// Sight reads of the caller (its identity, claims, scopes); "" keeps
	// nothing, and every list is decided afresh.
	ViewKey(ctx context.Context) string
}

// DefaultMaxViews bounds the views a Views keeps when SetVisibility is
// given no bound.
const DefaultMaxViews = 1024

// Views holds a server's Visibility and the filtered lists of its
// callers' views, at most a bound of them: the least recently used view
// is dropped first.
type Views struct {
	srv *Server
	vis Visibility
	max int

	mu    sync.Mutex
	gen   uint64     // counts Resets: a list filtered before one is not kept
	lru   *list.List // of *view, most recently used first
	byKey map[string]*list.Element
}

// view is the filtered lists of one ViewKey, by kind.
type view struct {
	key   string
	lists [4]filtered
}

// filtered is one list as it was registered (src) and as the view sees it
// (kept); both are []E of the list's element type, never modified.
type filtered struct {
	src, kept any
}

// kindIndex is an EntryKind's place in view.lists.
func kindIndex(k EntryKind) int {
	switch k {
	case EntryTool:
		return 0
	case EntryPrompt:
		return 1
	case EntryResource:
		return 2
	}
	return 3
}

// SetVisibility makes s show each caller only what v lets it see, keeping
// the filtered lists of at most maxViews views (zero means
// DefaultMaxViews). It adds middleware (see Use), so it is called once,
// before s serves; the Views it returns is how v says that its decisions
// changed.
func (s *Server) SetVisibility(v Visibility, maxViews int) *Views {
	if maxViews <= 0 {
		maxViews = DefaultMaxViews
	}
	w := &Views{srv: s, vis: v, max: maxViews, lru: list.New(), byKey: map[string]*list.Element{}}
	s.Use(w.middleware)
	return w
}

// Reset drops every kept list, for a Visibility whose decisions changed
// (its rules were reloaded), and tells the clients that their lists
// changed.
func (w *Views) Reset() {
	w.mu.Lock()
	w.gen++
	w.lru.Init()
	clear(w.byKey)
	w.mu.Unlock()
	for _, m := range []string{mcp.MethodToolListChangedNotification, mcp.MethodPromptListChangedNotification, mcp.MethodResourceListChangedNotification} {
		w.srv.notifyAll(m)
	}
}

type viewsKey struct{}

// viewsOf returns the Views of the server serving ctx's request, nil when
// it has none.
func viewsOf(ctx context.Context) *Views {
	w, _ := ctx.Value(viewsKey{}).(*Views)
	return w
}

// middleware makes the Views known to the list handlers, and answers
// requests that name Hidden entries.
func (w *Views) middleware(next HandlerFunc) HandlerFunc {
	return func(ctx context.Context, req *Request) (mcp.Message, error) {
		ctx = context.WithValue(ctx, viewsKey{}, w)
		switch req.Method {
		case mcp.MethodCallTool, mcp.MethodGetPrompt, mcp.MethodReadResource:
			if w.hides(ctx, req) {
				return mcp.DispatchServerRequest(ctx, hiding{dispatcher{w.srv}}, req.ProtocolVersion, req.Method, req.Params)
			}
		}
		return next(ctx, req)
	}
}

// hides reports whether req names an entry Hidden from its caller.
func (w *Views) hides(ctx context.Context, req *Request) bool {
	key := "name"
	if req.Method == mcp.MethodReadResource {
		key = "uri"
	}
	var sc jsonrpc.Scanner
	sc.Reset(req.Params)
	raw, ok := member(&sc, key)
	if !ok {
		return false // the dispatch refuses it as it refuses any malformed request
	}
	name, ok := rawString(raw)
	if !ok {
		return false
	}
	s := w.srv
	var e Entry
	switch req.Method {
	case mcp.MethodCallTool:
		t := s.tool(name)
		if t == nil {
			return false
		}
		e = Entry{Kind: EntryTool, Name: name, Tool: &t.def}
	case mcp.MethodGetPrompt:
		if s.findPrompt(name) == nil {
			return false
		}
		e = Entry{Kind: EntryPrompt, Name: name}
	default:
		// The entry the read would be served by: a Hidden one is not
		// passed over for a later template that also matches, which the
		// caller may see; it answers as if no resource matched.
		res, tmpl, _ := s.findResource(name)
		switch {
		case res != nil:
			e = Entry{Kind: EntryResource, Name: name}
		case tmpl != nil:
			e = Entry{Kind: EntryTemplate, Name: tmpl.def.URITemplate}
		default:
			return false
		}
	}
	return w.vis.Sight(ctx, e) == Hidden
}

// hiding is the dispatch of a request that names a Hidden entry: the
// params are checked as for any request, and the entry is not found.
type hiding struct{ dispatcher }

func (hiding) CallTool(_ context.Context, p *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	return nil, unknownTool(p.Name)
}

func (hiding) GetPrompt(_ context.Context, p *mcp.GetPromptRequestParams) (*mcp.GetPromptResult, error) {
	return nil, unknownPrompt(p.Name)
}

func (hiding) ReadResource(_ context.Context, p *mcp.ReadResourceRequestParams) (*mcp.ReadResourceResult, error) {
	return nil, ResourceNotFound(p.URI)
}

// unknownTool and unknownPrompt are the errors the engine answers a name
// that nothing registered has with (CallTool, GetPrompt).
func unknownTool(name string) error {
	return jsonrpc.ErrInvalidParams("invalid params: name: unknown tool " + strconv.Quote(name))
}

func unknownPrompt(name string) error {
	return jsonrpc.ErrInvalidParams("invalid params: name: unknown prompt " + strconv.Quote(name))
}

// visibleList returns the entries of *items the caller of ctx sees, and
// the function to call once the result is no longer read. Without Views
// that is *items itself, read under s.mu, which done releases; with
// Views, it is a filtered copy, decided without s.mu held (a Visibility
// may take locks of its own that are held while entries are registered),
// and the request's results are marked private.
func visibleList[E comparable](ctx context.Context, s *Server, items *[]E, kind EntryKind, entry func(E) Entry) (visible []E, done func()) {
	s.mu.RLock()
	w := viewsOf(ctx)
	if w == nil {
		return *items, s.mu.RUnlock
	}
	src := slices.Clone(*items)
	s.mu.RUnlock()
	if r := requestOf(ctx); r != nil {
		r.caching = &Caching{TTL: s.opts.Caching.TTL}
	}
	return filterList(ctx, w, src, kind, entry), func() {}
}

// filterList returns the entries of src Shown to the caller, from the
// caller's view when it holds src's filtering.
func filterList[E comparable](ctx context.Context, w *Views, src []E, kind EntryKind, entry func(E) Entry) []E {
	key := w.vis.ViewKey(ctx)
	i := kindIndex(kind)
	var gen uint64
	if key != "" {
		w.mu.Lock()
		gen = w.gen
		if el, ok := w.byKey[key]; ok {
			w.lru.MoveToFront(el)
			f := el.Value.(*view).lists[i]
			if prev, ok := f.src.([]E); ok && slices.Equal(prev, src) {
				w.mu.Unlock()
				return f.kept.([]E)
			}
		}
		w.mu.Unlock()
	}
	kept := make([]E, 0, len(src))
	for _, x := range src {
		if w.vis.Sight(ctx, entry(x)) == Shown {
			kept = append(kept, x)
		}
	}
	if key == "" {
		return kept
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.gen != gen {
		return kept
	}
	el, ok := w.byKey[key]
	if !ok {
		if w.lru.Len() >= w.max {
			old := w.lru.Back()
			w.lru.Remove(old)
			delete(w.byKey, old.Value.(*view).key)
		}
		el = w.lru.PushFront(&view{key: key})
		w.byKey[key] = el
	}
	el.Value.(*view).lists[i] = filtered{src: src, kept: kept}
	return kept
}

// holds reports whether f, which reads the registry, holds.
func (s *Server) holds(f func() bool) bool {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return f()
}

func toolEntry(t *tool) Entry         { return Entry{Kind: EntryTool, Name: t.def.Name, Tool: &t.def} }
func promptEntry(p *prompt) Entry     { return Entry{Kind: EntryPrompt, Name: p.def.Name} }
func resourceEntry(r *resource) Entry { return Entry{Kind: EntryResource, Name: r.def.URI} }
func templateEntry(t *template) Entry { return Entry{Kind: EntryTemplate, Name: t.def.URITemplate} }
