package tasks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Store keeps task records. Every method is safe for concurrent use, and
// every method takes the owner of the task: a task is visible only to the
// owner that created it, and another owner's id behaves exactly like an id
// that does not exist (ErrNotFound), so ids cannot be probed.
//
// Implementations hold no live state (goroutines, channels, contexts) in
// a record: the process that runs a task keeps that itself and talks to
// the store only through these methods.
type Store interface {
	// Create records a new task for owner with status working and
	// returns it. The store picks the id, from crypto/rand, and may grant
	// a TTL other than the one asked for (see Task.TTL). It fails with
	// ErrLimit when the store or the owner holds as many tasks as its
	// bounds allow.
	Create(ctx context.Context, owner string, p CreateParams) (Task, error)

	// Get returns owner's task id, or ErrNotFound.
	Get(ctx context.Context, owner, id string) (Task, error)

	// Update moves owner's task id from status from to the change's
	// status, atomically: when the task's status is no longer from, or
	// from is terminal, it fails with ErrConflict and changes nothing.
	// A change to the same non-terminal status (working to working with a
	// new message) is allowed. It returns the task as changed.
	Update(ctx context.Context, owner, id string, from Status, c Change) (Task, error)

	// List returns owner's tasks in creation order, a page at a time,
	// without their payloads (InputRequests, Result, Error are nil): a
	// listing shows statuses, and Get fetches what one task carries.
	// An empty cursor starts at the first task; Page.Next resumes after
	// the page's last task and is empty at the end. Tasks created while a
	// client pages appear after the ones it has seen, so a listing never
	// repeats or skips a task that outlives it. A cursor this store did
	// not make for owner fails with ErrCursor. A limit of zero or less
	// means the store's default page size; larger limits are capped.
	List(ctx context.Context, owner, cursor string, limit int) (Page, error)

	// Delete removes owner's task id whatever its status, or fails with
	// ErrNotFound. The process running it learns from its next Update.
	Delete(ctx context.Context, owner, id string) error
}

// The errors a Store returns, wrapped with context: test with errors.Is.
var (
	// ErrNotFound: no task with that id belongs to the owner, because it
	// never existed, belongs to another owner, expired, or was deleted.
	ErrNotFound = errors.New("task not found")

	// ErrConflict: a compare-and-set Update found the task in another
	// status than expected, or in a terminal status, which is final.
	ErrConflict = errors.New("task status conflict")

	// ErrLimit: the store or the owner holds as many tasks as allowed.
	ErrLimit = errors.New("task limit reached")

	// ErrCursor: a List cursor is malformed, forged, made for another
	// owner, or made by another store (a stale one from before a
	// restart). The 2025-11-25 spec answers it with -32602.
	ErrCursor = errors.New("invalid task cursor")

	// ErrInvalid: an argument cannot be stored: an empty owner, an
	// unknown status, or a change whose payload does not fit its status.
	ErrInvalid = errors.New("invalid task argument")
)

// Status is the state of a task. The values are the wire strings of both
// eras.
type Status string

// The statuses of a task. Completed, failed and cancelled are terminal:
// once a task reaches one it never changes again.
const (
	StatusWorking       Status = "working"
	StatusInputRequired Status = "input_required"
	StatusCompleted     Status = "completed"
	StatusFailed        Status = "failed"
	StatusCancelled     Status = "cancelled"
)

// Valid reports whether s is one of the five statuses.
func (s Status) Valid() bool {
	switch s {
	case StatusWorking, StatusInputRequired, StatusCompleted, StatusFailed, StatusCancelled:
		return true
	}
	return false
}

// Terminal reports whether s is final: completed, failed or cancelled.
func (s Status) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCancelled
}

// Task is the stored record of one task. It is plain data: a store may
// keep it serialized, and what a Store returns is the caller's copy.
type Task struct {
	// ID is the task id: unguessable, from crypto/rand.
	ID string `json:"id"`
	// Owner is the authorization context the task belongs to.
	Owner string `json:"owner"`
	// Seq orders the store's tasks by creation; List pages by it.
	Seq uint64 `json:"seq"`
	// Status is the current status.
	Status Status `json:"status"`
	// Message is the human-readable statusMessage, or empty.
	Message string `json:"message,omitempty"`
	// Created is when the task was created (createdAt).
	Created time.Time `json:"created"`
	// Updated is when the task last changed (lastUpdatedAt).
	Updated time.Time `json:"updated"`
	// TTL is the retention the store granted, always positive: the record
	// is kept while the task runs and for TTL after it reaches a terminal
	// status. That is never shorter than the 2025-11-25 reading (TTL from
	// creation), so a client that trusts either era's ttl is not surprised.
	TTL time.Duration `json:"ttl"`
	// PollInterval is the suggested polling interval, or zero for none.
	PollInterval time.Duration `json:"pollInterval,omitempty"`
	// Expires is when the record goes away: Updated+TTL once terminal,
	// zero while the task runs.
	Expires time.Time `json:"expires,omitzero"`
	// InputRequests is the raw JSON object of requests the server waits
	// on while the status is input_required (the extension's
	// inputRequests); nil otherwise.
	InputRequests json.RawMessage `json:"inputRequests,omitempty"`
	// Result is the raw JSON result of the task's request: set when
	// completed, and when failed with a result that reports the failure
	// (a tool result with isError) rather than an Error.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the JSON-RPC error the request failed with, when failed.
	Error *Error `json:"error,omitempty"`
}

// Error is a JSON-RPC error object as a failed task keeps it.
type Error struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// CreateParams are what the creator of a task asks for.
type CreateParams struct {
	// TTL is the retention asked for; zero or less means the store's
	// default, and the store caps it at its maximum.
	TTL time.Duration
	// PollInterval is the polling interval to suggest; zero for none.
	PollInterval time.Duration
}

// Change is the new state an Update gives a task. Fields that do not fit
// Status must be empty, so a record never mixes states.
type Change struct {
	// Status is the new status.
	Status Status
	// Message replaces the status message; empty clears it.
	Message string
	// InputRequests is the raw JSON object of pending input requests,
	// only with input_required.
	InputRequests json.RawMessage
	// Result is the raw JSON result: required with completed, allowed
	// with failed instead of Error.
	Result json.RawMessage
	// Error is the JSON-RPC error of a failed task.
	Error *Error
}

// Validate reports, wrapping ErrInvalid, why c cannot be stored. Stores
// call it; so may a caller that wants to fail before touching a store.
func (c Change) Validate() error {
	if !c.Status.Valid() {
		return fmt.Errorf("%w: unknown status %q", ErrInvalid, c.Status)
	}
	if len(c.InputRequests) > 0 && c.Status != StatusInputRequired {
		return fmt.Errorf("%w: input requests with status %s", ErrInvalid, c.Status)
	}
	switch c.Status {
	case StatusCompleted:
		if len(c.Result) == 0 {
			return fmt.Errorf("%w: completed without a result", ErrInvalid)
		}
		if c.Error != nil {
			return fmt.Errorf("%w: completed with an error", ErrInvalid)
		}
	case StatusFailed:
		if (len(c.Result) == 0) == (c.Error == nil) {
			return fmt.Errorf("%w: failed needs exactly one of a result or an error", ErrInvalid)
		}
	default:
		if len(c.Result) > 0 || c.Error != nil {
			return fmt.Errorf("%w: result or error with status %s", ErrInvalid, c.Status)
		}
	}
	if len(c.InputRequests) > 0 && !json.Valid(c.InputRequests) {
		return fmt.Errorf("%w: input requests are not valid JSON", ErrInvalid)
	}
	if len(c.Result) > 0 && !json.Valid(c.Result) {
		return fmt.Errorf("%w: result is not valid JSON", ErrInvalid)
	}
	if c.Error != nil && len(c.Error.Data) > 0 && !json.Valid(c.Error.Data) {
		return fmt.Errorf("%w: error data is not valid JSON", ErrInvalid)
	}
	return nil
}

// Page is one page of a List.
type Page struct {
	// Tasks are the page's tasks in creation order.
	Tasks []Task
	// Next is the cursor of the following page, or empty after the last.
	Next string
}
