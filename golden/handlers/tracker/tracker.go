// Package tracker is the first server a new user might write: an issue
// tracker of five tools with enums, an optional body, a due date that may
// be left out, and the reporter's IP address, a type that marshals itself
// as text. Its mcpgen_gen.go is committed and kept up to date by
// go test ./gen (TestHandlersLive); tracker_test.go calls the tools
// through a server as a client would.
package tracker

//go:generate go run github.com/mcpgen/mcpgen/cmd/mcpgen

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sync"
	"time"
)

// Status says whether an issue is still open.
type Status string

// The statuses.
const (
	StatusOpen   Status = "open"
	StatusClosed Status = "closed"
)

// Priority says how soon an issue needs work.
type Priority string

// The priorities.
const (
	PriorityLow    Priority = "low"
	PriorityNormal Priority = "normal"
	PriorityHigh   Priority = "high"
)

// Issue is one issue as the tools return it.
type Issue struct {
	ID    int    `json:"id"`
	Title string `json:"title"`
	// The description, if any.
	Body     *string  `json:"body,omitempty"`
	Status   Status   `json:"status"`
	Priority Priority `json:"priority"`
	// When it should be done, if it has a date.
	Due *time.Time `json:"due,omitempty"`
	// The address the issue was reported from.
	Reporter netip.Addr `json:"reporter"`
	Labels   []string   `json:"labels"`
	// Why it was closed.
	Reason string `json:"reason,omitempty"`
}

// Tracker holds the issues.
type Tracker struct {
	mu     sync.Mutex
	issues []*Issue
}

// CreateInput describes a new issue.
type CreateInput struct {
	// One line saying what is wrong.
	Title string `json:"title" mcp:"minLength=1,maxLength=120"`
	// More detail.
	Body     *string  `json:"body,omitempty"`
	Priority Priority `json:"priority,omitempty" mcp:"default=normal"`
	// When it should be done.
	Due *time.Time `json:"due,omitempty"`
	// The reporter's IP address.
	Reporter netip.Addr `json:"reporter"`
	Labels   []string   `json:"labels,omitempty" mcp:"maxItems=5"`
}

// Create files a new issue.
//
//mcp:tool name=create_issue
func (t *Tracker) Create(ctx context.Context, in CreateInput) (Issue, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	is := &Issue{
		ID: len(t.issues) + 1, Title: in.Title, Body: in.Body, Status: StatusOpen, Priority: in.Priority,
		Due: in.Due, Reporter: in.Reporter, Labels: slices.Clone(in.Labels),
	}
	t.issues = append(t.issues, is)
	return *is, nil
}

// ListInput filters the issues.
type ListInput struct {
	// Only issues with this status.
	Status *Status `json:"status,omitempty"`
	// Only issues due before this time.
	DueBefore *time.Time `json:"dueBefore,omitempty"`
	// At most this many.
	Limit int `json:"limit,omitempty" mcp:"minimum=1,maximum=100,default=20"`
}

// ListOutput is a page of issues.
type ListOutput struct {
	Issues []Issue `json:"issues"`
}

// List lists issues, oldest first.
//
//mcp:tool name=list_issues readonly
func (t *Tracker) List(ctx context.Context, in ListInput) (ListOutput, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := ListOutput{Issues: []Issue{}}
	for _, is := range t.issues {
		if in.Status != nil && is.Status != *in.Status {
			continue
		}
		if in.DueBefore != nil && (is.Due == nil || !is.Due.Before(*in.DueBefore)) {
			continue
		}
		if len(out.Issues) == in.Limit {
			break
		}
		out.Issues = append(out.Issues, *is)
	}
	return out, nil
}

// IssueRef names an issue.
type IssueRef struct {
	ID int `json:"id" mcp:"minimum=1"`
}

// Get returns one issue.
//
//mcp:tool name=get_issue readonly
func (t *Tracker) Get(ctx context.Context, in IssueRef) (Issue, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	is, err := t.find(in.ID)
	if err != nil {
		return Issue{}, err
	}
	return *is, nil
}

// UpdateInput changes the fields it gives; those left out stay.
type UpdateInput struct {
	ID       int        `json:"id" mcp:"minimum=1"`
	Title    *string    `json:"title,omitempty" mcp:"minLength=1,maxLength=120"`
	Body     *string    `json:"body,omitempty"`
	Priority *Priority  `json:"priority,omitempty"`
	Due      *time.Time `json:"due,omitempty"`
}

// Update changes an open issue.
//
//mcp:tool name=update_issue idempotent
func (t *Tracker) Update(ctx context.Context, in UpdateInput) (Issue, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	is, err := t.find(in.ID)
	if err != nil {
		return Issue{}, err
	}
	if is.Status == StatusClosed {
		return Issue{}, fmt.Errorf("issue %d is closed", in.ID)
	}
	if in.Title != nil {
		is.Title = *in.Title
	}
	if in.Body != nil {
		is.Body = in.Body
	}
	if in.Priority != nil {
		is.Priority = *in.Priority
	}
	if in.Due != nil {
		is.Due = in.Due
	}
	return *is, nil
}

// CloseInput closes an issue.
type CloseInput struct {
	ID     int    `json:"id" mcp:"minimum=1"`
	Reason string `json:"reason" mcp:"enum=done|wontfix|duplicate"`
}

// Close closes an issue.
//
//mcp:tool name=close_issue idempotent
func (t *Tracker) Close(ctx context.Context, in CloseInput) (Issue, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	is, err := t.find(in.ID)
	if err != nil {
		return Issue{}, err
	}
	is.Status, is.Reason = StatusClosed, in.Reason
	return *is, nil
}

// find returns issue id; t.mu is held.
func (t *Tracker) find(id int) (*Issue, error) {
	if id < 1 || id > len(t.issues) {
		return nil, fmt.Errorf("issue %d not found", id)
	}
	return t.issues[id-1], nil
}
