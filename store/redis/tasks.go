package redis

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/mcpgen/mcpgen/runtime/tasks"
)

// DefaultTaskPrefix starts every key of a TaskStore whose Options give no
// Prefix. The braces are a hash tag: in a cluster all of the store's keys
// share one slot, as its scripts need.
const DefaultTaskPrefix = "{mcpgen:tasks}:"

// sweepBatch is how many expired index entries each call removes on its
// way, as the memory store does; Create sweeps them all before it refuses
// with ErrLimit.
const sweepBatch = 16

// TaskOptions configure a TaskStore. Zero or negative fields mean the
// defaults of tasks.Options.
type TaskOptions struct {
	// Prefix starts every key; empty means DefaultTaskPrefix. Stores that
	// share a prefix share their tasks.
	Prefix string
	// MaxTasks bounds the records held under the prefix, running and
	// retained together.
	MaxTasks int
	// MaxPerOwner bounds the records one owner holds.
	MaxPerOwner int
	// DefaultTTL is granted when Create asks for none.
	DefaultTTL time.Duration
	// MaxTTL caps the TTL Create grants.
	MaxTTL time.Duration
	// PageSize is the List page size when the caller gives no limit.
	PageSize int
	// MaxPageSize caps the List limit.
	MaxPageSize int
	// CursorKey authenticates List cursors. Replicas that share a prefix
	// need the same key, or a cursor one made fails on another with
	// ErrCursor; nil means a random key, good for one process only.
	CursorKey []byte
}

// TaskStore is a tasks.Store in Redis, shared by every replica that uses
// the same prefix (and CursorKey).
//
// Every method is one round trip: Get reads the record's hash, and Create,
// Update, List and Delete each run one Lua script, which makes the status
// compare-and-set and the bounds atomic across replicas. A terminal record
// carries a PEXPIRE of its TTL, so Redis drops it on time even if no
// replica calls again; the index entries it leaves are swept lazily, a few
// by every script and all of them before Create refuses with ErrLimit.
// Expiry is judged by the callers' clocks (the record's Expires), and
// Redis's own expiry follows the same TTL, so replicas need clocks in
// step to within what a TTL can tolerate.
type TaskStore struct {
	client goredis.UniversalClient
	opts   TaskOptions
	cursor cursorCodec
}

var _ tasks.Store = (*TaskStore)(nil)

// NewTaskStore returns a TaskStore that keeps its records through client.
// The caller owns client and closes it after the store's last use.
func NewTaskStore(client goredis.UniversalClient, opts TaskOptions) *TaskStore {
	positive := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	positive(&opts.MaxTasks, tasks.DefaultMaxTasks)
	positive(&opts.MaxPerOwner, tasks.DefaultMaxPerOwner)
	positive(&opts.PageSize, tasks.DefaultPageSize)
	positive(&opts.MaxPageSize, tasks.DefaultMaxPageSize)
	if opts.DefaultTTL <= 0 {
		opts.DefaultTTL = tasks.DefaultTTL
	}
	if opts.MaxTTL <= 0 {
		opts.MaxTTL = tasks.DefaultMaxTTL
	}
	if opts.Prefix == "" {
		opts.Prefix = DefaultTaskPrefix
	}
	key := bytes.Clone(opts.CursorKey)
	if len(key) == 0 {
		key = make([]byte, 32)
		rand.Read(key)
	}
	return &TaskStore{client: client, opts: opts, cursor: cursorCodec{key: key, prefix: opts.Prefix}}
}

func (s *TaskStore) recordKey(id string) string   { return s.opts.Prefix + "t:" + id }
func (s *TaskStore) ownerKey(owner string) string { return s.opts.Prefix + "o:" + owner }
func (s *TaskStore) allKey() string               { return s.opts.Prefix + "all" }
func (s *TaskStore) seqKey() string               { return s.opts.Prefix + "seq" }

// Create implements tasks.Store.
func (s *TaskStore) Create(ctx context.Context, owner string, p tasks.CreateParams) (tasks.Task, error) {
	if owner == "" {
		return tasks.Task{}, fmt.Errorf("create task: %w: empty owner", tasks.ErrInvalid)
	}
	ttl := p.TTL
	if ttl <= 0 {
		ttl = s.opts.DefaultTTL
	}
	ttl = min(ttl, s.opts.MaxTTL)
	poll := max(p.PollInterval, 0)
	id := rand.Text()
	// UTC drops the monotonic reading: the record holds wall clock
	// times, and the caller's copy must equal what Get returns later.
	now := time.Now().UTC()
	reply, err := createScript.Run(ctx, s.client,
		[]string{s.allKey(), s.ownerKey(owner), s.seqKey()},
		s.opts.Prefix, id, owner, now.UnixMilli(), s.opts.MaxTasks, s.opts.MaxPerOwner,
		now.UnixNano(), int64(ttl), int64(poll),
	).Slice()
	if err != nil {
		return tasks.Task{}, fmt.Errorf("create task: redis: %w", err)
	}
	if len(reply) != 2 {
		return tasks.Task{}, fmt.Errorf("create task: redis: unexpected reply %v", reply)
	}
	n, _ := reply[1].(int64)
	switch reply[0] {
	case "ok":
	case "limit_all":
		return tasks.Task{}, fmt.Errorf("create task: %w: the store holds %d tasks", tasks.ErrLimit, n)
	case "limit_owner":
		return tasks.Task{}, fmt.Errorf("create task: %w: the owner holds %d tasks", tasks.ErrLimit, n)
	case "dup":
		// 130 random bits do not collide; a broken random source would.
		return tasks.Task{}, fmt.Errorf("create task: id %s already in use", id)
	default:
		return tasks.Task{}, fmt.Errorf("create task: redis: unexpected reply %v", reply)
	}
	return tasks.Task{
		ID:           id,
		Owner:        owner,
		Seq:          uint64(n),
		Status:       tasks.StatusWorking,
		Created:      now,
		Updated:      now,
		TTL:          ttl,
		PollInterval: poll,
	}, nil
}

// Get implements tasks.Store.
func (s *TaskStore) Get(ctx context.Context, owner, id string) (tasks.Task, error) {
	fields, err := s.client.HGetAll(ctx, s.recordKey(id)).Result()
	if err != nil {
		return tasks.Task{}, fmt.Errorf("get task: redis: %w", err)
	}
	if fields["owner"] != owner || len(fields) == 0 {
		return tasks.Task{}, fmt.Errorf("get task: %w", tasks.ErrNotFound)
	}
	t, err := decodeTask(id, fields, true)
	if err != nil {
		return tasks.Task{}, fmt.Errorf("get task %s: %w", id, err)
	}
	if expired(t, time.Now()) {
		return tasks.Task{}, fmt.Errorf("get task: %w", tasks.ErrNotFound)
	}
	return t, nil
}

// Update implements tasks.Store.
func (s *TaskStore) Update(ctx context.Context, owner, id string, from tasks.Status, c tasks.Change) (tasks.Task, error) {
	if !from.Valid() {
		return tasks.Task{}, fmt.Errorf("update task %s: %w: unknown status %q", id, tasks.ErrInvalid, from)
	}
	if err := c.Validate(); err != nil {
		return tasks.Task{}, fmt.Errorf("update task %s: %w", id, err)
	}
	var errJSON []byte
	if c.Error != nil {
		var err error
		if errJSON, err = json.Marshal(c.Error); err != nil {
			return tasks.Task{}, fmt.Errorf("update task %s: %w: error: %v", id, tasks.ErrInvalid, err)
		}
	}
	terminal := "0"
	if c.Status.Terminal() {
		terminal = "1"
	}
	now := time.Now().UTC()
	reply, err := updateScript.Run(ctx, s.client, []string{s.allKey()},
		s.opts.Prefix, id, owner, now.UnixMilli(), string(from), string(c.Status),
		c.Message, now.UnixNano(), []byte(c.InputRequests), []byte(c.Result), errJSON, terminal,
	).Slice()
	if err != nil {
		return tasks.Task{}, fmt.Errorf("update task %s: redis: %w", id, err)
	}
	if len(reply) == 0 {
		return tasks.Task{}, fmt.Errorf("update task %s: redis: empty reply", id)
	}
	switch reply[0] {
	case "ok":
	case "notfound":
		return tasks.Task{}, fmt.Errorf("update task: %w", tasks.ErrNotFound)
	case "final":
		return tasks.Task{}, fmt.Errorf("update task %s: %w: it is %v, which is final", id, tasks.ErrConflict, reply[1])
	case "conflict":
		return tasks.Task{}, fmt.Errorf("update task %s: %w: it is %v, not %s", id, tasks.ErrConflict, reply[1], from)
	default:
		return tasks.Task{}, fmt.Errorf("update task %s: redis: unexpected reply %v", id, reply[0])
	}
	t, err := decodeTask(id, pairs(reply[1:]), true)
	if err != nil {
		return tasks.Task{}, fmt.Errorf("update task %s: %w", id, err)
	}
	return t, nil
}

// List implements tasks.Store.
func (s *TaskStore) List(ctx context.Context, owner, cursor string, limit int) (tasks.Page, error) {
	var after uint64
	if cursor != "" {
		var err error
		if after, err = s.cursor.decode(owner, cursor); err != nil {
			return tasks.Page{}, fmt.Errorf("list tasks: %w", err)
		}
	}
	if limit <= 0 {
		limit = s.opts.PageSize
	}
	limit = min(limit, s.opts.MaxPageSize)
	// One more than the page tells whether a next page exists.
	reply, err := listScript.Run(ctx, s.client, []string{s.ownerKey(owner), s.allKey()},
		s.opts.Prefix, owner, time.Now().UnixMilli(), after, limit+1,
	).Slice()
	if err != nil {
		return tasks.Page{}, fmt.Errorf("list tasks: redis: %w", err)
	}
	var page tasks.Page
	for _, r := range reply {
		row, ok := r.([]any)
		if !ok || len(row) == 0 {
			return tasks.Page{}, fmt.Errorf("list tasks: redis: unexpected reply %v", r)
		}
		if len(page.Tasks) == limit {
			page.Next = s.cursor.encode(owner, page.Tasks[limit-1].Seq)
			break
		}
		id, _ := row[0].(string)
		t, err := decodeTask(id, pairs(row[1:]), false)
		if err != nil {
			return tasks.Page{}, fmt.Errorf("list tasks: task %s: %w", id, err)
		}
		page.Tasks = append(page.Tasks, t)
	}
	return page, nil
}

// Delete implements tasks.Store.
func (s *TaskStore) Delete(ctx context.Context, owner, id string) error {
	n, err := deleteScript.Run(ctx, s.client, []string{s.allKey(), s.ownerKey(owner)},
		s.opts.Prefix, id, owner, time.Now().UnixMilli(),
	).Int()
	if err != nil {
		return fmt.Errorf("delete task %s: redis: %w", id, err)
	}
	if n == 0 {
		return fmt.Errorf("delete task: %w", tasks.ErrNotFound)
	}
	return nil
}

// pairs turns a flat name, value, name, value reply into a map; a nil
// value (a field the record lacks) becomes "".
func pairs(flat []any) map[string]string {
	m := make(map[string]string, len(flat)/2)
	for i := 0; i+1 < len(flat); i += 2 {
		name, _ := flat[i].(string)
		value, _ := flat[i+1].(string)
		m[name] = value
	}
	return m
}

// decodeTask builds the task id from its hash fields; with payload false
// it leaves InputRequests, Result and Error nil, as List returns tasks.
func decodeTask(id string, f map[string]string, payload bool) (tasks.Task, error) {
	var bad error
	num := func(name string) int64 {
		n, err := strconv.ParseInt(f[name], 10, 64)
		if err != nil && bad == nil {
			bad = fmt.Errorf("malformed record: field %s: %q", name, f[name])
		}
		return n
	}
	t := tasks.Task{
		ID:           id,
		Owner:        f["owner"],
		Seq:          uint64(num("seq")),
		Status:       tasks.Status(f["status"]),
		Message:      f["message"],
		Created:      time.Unix(0, num("created")).UTC(),
		Updated:      time.Unix(0, num("updated")).UTC(),
		TTL:          time.Duration(num("ttl")),
		PollInterval: time.Duration(num("poll")),
	}
	if bad != nil {
		return tasks.Task{}, bad
	}
	if !t.Status.Valid() {
		return tasks.Task{}, fmt.Errorf("malformed record: status %q", t.Status)
	}
	if t.Status.Terminal() {
		t.Expires = t.Updated.Add(t.TTL)
	}
	if payload {
		if v := f["input"]; v != "" {
			t.InputRequests = json.RawMessage(v)
		}
		if v := f["result"]; v != "" {
			t.Result = json.RawMessage(v)
		}
		if v := f["error"]; v != "" {
			t.Error = new(tasks.Error)
			if err := json.Unmarshal([]byte(v), t.Error); err != nil {
				return tasks.Task{}, fmt.Errorf("malformed record: error: %v", err)
			}
		}
	}
	return t, nil
}

// expired reports whether t has expired by now.
func expired(t tasks.Task, now time.Time) bool {
	return !t.Expires.IsZero() && !now.Before(t.Expires)
}
