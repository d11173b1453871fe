package tasks

import (
	"bytes"
	"cmp"
	"container/heap"
	"context"
	"crypto/rand"
	"fmt"
	"slices"
	"sync"
	"time"
)

// The defaults of Options.
const (
	DefaultMaxTasks    = 10000
	DefaultMaxPerOwner = 1000
	DefaultTTL         = time.Hour
	DefaultMaxTTL      = 24 * time.Hour
	DefaultPageSize    = 50
	DefaultMaxPageSize = 500
)

// sweepBatch is how many expired records each call removes on its way,
// so no call pays for a long idle period; Create sweeps them all before it
// refuses with ErrLimit.
const sweepBatch = 16

// Options configure a MemoryStore. The zero Options are ready to use;
// zero or negative fields mean their defaults.
type Options struct {
	// MaxTasks bounds the records held, running and retained together.
	MaxTasks int
	// MaxPerOwner bounds the records one owner holds.
	MaxPerOwner int
	// DefaultTTL is granted when Create asks for none.
	DefaultTTL time.Duration
	// MaxTTL caps the TTL Create grants: with the bounds it caps how long
	// a finished task holds a slot.
	MaxTTL time.Duration
	// PageSize is the List page size when the caller gives no limit.
	PageSize int
	// MaxPageSize caps the List limit.
	MaxPageSize int
	// CursorKey authenticates List cursors; nil means a random key, so a
	// cursor does not survive the store. Replicas behind a shared store
	// need one key.
	CursorKey []byte
	// Now is the clock; nil means time.Now. Tests inject a fake one.
	Now func() time.Time
}

// MemoryStore is a Store in the memory of one process, for servers that
// run on one replica and for tests.
//
// It starts no goroutine: an expired record is removed when a call comes
// across it, and every call also removes up to a few of the records that
// expired longest ago (from a heap ordered by expiry), so memory stays
// bounded by Options without a janitor to own and stop, and a store nobody
// calls costs nothing. Until enough calls come, an expired record may
// still hold memory, but it is never returned and never keeps a Create
// from its slot.
//
// One mutex guards the store: every operation is a few map and slice
// steps, shorter than the copy of a result the caller gets anyway.
type MemoryStore struct {
	opts   Options
	cursor cursorCodec

	mu      sync.Mutex
	seq     uint64              // the Seq of the newest task
	byID    map[string]*entry   // every record
	byOwner map[string][]*entry // each owner's records in Seq order, for List
	expiry  expiryHeap          // the terminal records, soonest to expire first
}

// entry is a record and its place in the expiry heap.
type entry struct {
	task  Task
	index int // in expiry, or -1 while the task runs
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore(opts Options) *MemoryStore {
	positive := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	positive(&opts.MaxTasks, DefaultMaxTasks)
	positive(&opts.MaxPerOwner, DefaultMaxPerOwner)
	positive(&opts.PageSize, DefaultPageSize)
	positive(&opts.MaxPageSize, DefaultMaxPageSize)
	if opts.DefaultTTL <= 0 {
		opts.DefaultTTL = DefaultTTL
	}
	if opts.MaxTTL <= 0 {
		opts.MaxTTL = DefaultMaxTTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	key := bytes.Clone(opts.CursorKey)
	if len(key) == 0 {
		key = make([]byte, 32)
		rand.Read(key)
	}
	return &MemoryStore{
		opts:    opts,
		cursor:  cursorCodec{key: key},
		byID:    make(map[string]*entry),
		byOwner: make(map[string][]*entry),
	}
}

var _ Store = (*MemoryStore)(nil)

// Create implements Store.
func (m *MemoryStore) Create(ctx context.Context, owner string, p CreateParams) (Task, error) {
	if err := ctx.Err(); err != nil {
		return Task{}, err
	}
	if owner == "" {
		return Task{}, fmt.Errorf("create task: %w: empty owner", ErrInvalid)
	}
	ttl := p.TTL
	if ttl <= 0 {
		ttl = m.opts.DefaultTTL
	}
	ttl = min(ttl, m.opts.MaxTTL)
	id := newID()

	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now, sweepBatch)
	if len(m.byID) >= m.opts.MaxTasks || len(m.byOwner[owner]) >= m.opts.MaxPerOwner {
		m.sweep(now, -1)
	}
	if len(m.byID) >= m.opts.MaxTasks {
		return Task{}, fmt.Errorf("create task: %w: the store holds %d tasks", ErrLimit, len(m.byID))
	}
	if n := len(m.byOwner[owner]); n >= m.opts.MaxPerOwner {
		return Task{}, fmt.Errorf("create task: %w: the owner holds %d tasks", ErrLimit, n)
	}
	if _, dup := m.byID[id]; dup {
		// 130 random bits do not collide; a broken random source would.
		return Task{}, fmt.Errorf("create task: id %s already in use", id)
	}
	m.seq++
	e := &entry{index: -1, task: Task{
		ID:           id,
		Owner:        owner,
		Seq:          m.seq,
		Status:       StatusWorking,
		Created:      now,
		Updated:      now,
		TTL:          ttl,
		PollInterval: max(p.PollInterval, 0),
	}}
	m.byID[id] = e
	m.byOwner[owner] = append(m.byOwner[owner], e)
	return e.task, nil
}

// Get implements Store.
func (m *MemoryStore) Get(ctx context.Context, owner, id string) (Task, error) {
	if err := ctx.Err(); err != nil {
		return Task{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now, sweepBatch)
	e, err := m.lookup(now, owner, id)
	if err != nil {
		return Task{}, fmt.Errorf("get task: %w", err)
	}
	return e.task.clone(), nil
}

// Update implements Store.
func (m *MemoryStore) Update(ctx context.Context, owner, id string, from Status, c Change) (Task, error) {
	if err := ctx.Err(); err != nil {
		return Task{}, err
	}
	if !from.Valid() {
		return Task{}, fmt.Errorf("update task %s: %w: unknown status %q", id, ErrInvalid, from)
	}
	if err := c.Validate(); err != nil {
		return Task{}, fmt.Errorf("update task %s: %w", id, err)
	}
	// Copy the payload before taking the lock: the store must not share
	// bytes the caller may reuse.
	c.InputRequests = bytes.Clone(c.InputRequests)
	c.Result = bytes.Clone(c.Result)
	c.Error = c.Error.clone()

	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now, sweepBatch)
	e, err := m.lookup(now, owner, id)
	if err != nil {
		return Task{}, fmt.Errorf("update task: %w", err)
	}
	t := &e.task
	switch {
	case t.Status.Terminal():
		return Task{}, fmt.Errorf("update task %s: %w: it is %s, which is final", id, ErrConflict, t.Status)
	case t.Status != from:
		return Task{}, fmt.Errorf("update task %s: %w: it is %s, not %s", id, ErrConflict, t.Status, from)
	}
	t.Status = c.Status
	t.Message = c.Message
	t.InputRequests = c.InputRequests
	t.Result = c.Result
	t.Error = c.Error
	t.Updated = now
	if t.Status.Terminal() {
		t.Expires = now.Add(t.TTL)
		heap.Push(&m.expiry, e)
	}
	return t.clone(), nil
}

// List implements Store.
func (m *MemoryStore) List(ctx context.Context, owner, cursor string, limit int) (Page, error) {
	if err := ctx.Err(); err != nil {
		return Page{}, err
	}
	var after uint64
	if cursor != "" {
		var err error
		if after, err = m.cursor.decode(owner, cursor); err != nil {
			return Page{}, fmt.Errorf("list tasks: %w", err)
		}
	}
	if limit <= 0 {
		limit = m.opts.PageSize
	}
	limit = min(limit, m.opts.MaxPageSize)

	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now, sweepBatch)
	list := m.byOwner[owner]
	i, found := slices.BinarySearchFunc(list, after, bySeq)
	if found {
		i++
	}
	var page Page
	for ; i < len(list); i++ {
		if list[i].expired(now) {
			continue
		}
		if len(page.Tasks) == limit {
			page.Next = m.cursor.encode(owner, page.Tasks[limit-1].Seq)
			break
		}
		page.Tasks = append(page.Tasks, list[i].task.summary())
	}
	return page, nil
}

// Delete implements Store.
func (m *MemoryStore) Delete(ctx context.Context, owner, id string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	now := m.now()
	m.sweep(now, sweepBatch)
	e, err := m.lookup(now, owner, id)
	if err != nil {
		return fmt.Errorf("delete task: %w", err)
	}
	m.remove(e)
	return nil
}

// Len returns how many records the store holds, expired ones not yet
// removed included: what its memory is proportional to.
func (m *MemoryStore) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.byID)
}

// lookup returns owner's live record id, removing it if it has expired.
// Another owner's record is reported exactly like a missing one.
func (m *MemoryStore) lookup(now time.Time, owner, id string) (*entry, error) {
	e := m.byID[id]
	if e == nil || e.task.Owner != owner {
		return nil, ErrNotFound
	}
	if e.expired(now) {
		m.remove(e)
		return nil, ErrNotFound
	}
	return e, nil
}

// sweep removes up to n of the records that expired by now; n < 0 means
// all of them. Each record is swept once, so the work is paid for by the
// Update that made it terminal.
func (m *MemoryStore) sweep(now time.Time, n int) {
	for ; n != 0 && len(m.expiry) > 0 && m.expiry[0].expired(now); n-- {
		m.remove(m.expiry[0])
	}
}

// remove drops e from every index.
func (m *MemoryStore) remove(e *entry) {
	delete(m.byID, e.task.ID)
	if e.index >= 0 {
		heap.Remove(&m.expiry, e.index)
	}
	owner := e.task.Owner
	list := m.byOwner[owner]
	if i, ok := slices.BinarySearchFunc(list, e.task.Seq, bySeq); ok {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(m.byOwner, owner)
	} else {
		m.byOwner[owner] = list
	}
}

func bySeq(e *entry, seq uint64) int { return cmp.Compare(e.task.Seq, seq) }

func (e *entry) expired(now time.Time) bool {
	return !e.task.Expires.IsZero() && !now.Before(e.task.Expires)
}

// expiryHeap is a container/heap of terminal records by Expires.
type expiryHeap []*entry

func (h expiryHeap) Len() int           { return len(h) }
func (h expiryHeap) Less(i, j int) bool { return h[i].task.Expires.Before(h[j].task.Expires) }
func (h expiryHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *expiryHeap) Push(x any) {
	e := x.(*entry)
	e.index = len(*h)
	*h = append(*h, e)
}
func (h *expiryHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	e.index = -1
	*h = old[:len(old)-1]
	return e
}

// summary returns t without its payload, as List returns it.
func (t Task) summary() Task {
	t.InputRequests, t.Result, t.Error = nil, nil, nil
	return t
}

// clone returns t with its own copies of the raw JSON, so a caller that
// edits what it got cannot change the store.
func (t Task) clone() Task {
	t.InputRequests = bytes.Clone(t.InputRequests)
	t.Result = bytes.Clone(t.Result)
	t.Error = t.Error.clone()
	return t
}

func (e *Error) clone() *Error {
	if e == nil {
		return nil
	}
	c := *e
	c.Data = bytes.Clone(c.Data)
	return &c
}

// now reads the clock in UTC and without the monotonic reading: records
// hold wall clock times, as they would after a trip through a shared
// store, so expiry behaves the same here and there.
func (m *MemoryStore) now() time.Time {
	return m.opts.Now().UTC()
}
