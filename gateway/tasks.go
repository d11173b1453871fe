package gateway

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// Tasks across the gateway.
//
// A 2026-07-28 client's call of a task-supporting tool on a 2026-07-28
// upstream becomes the upstream's own task: the call goes up declaring
// the tasks extension, and the upstream's answer comes back as it came,
// a task handle included. The handle's taskId is the upstream's, wrapped:
// "<upstream>~<tag>~<id>", where tag binds the id to the caller it was
// created for (a MAC of the caller and the id under a key of the
// upstream's, made at random when first used), since the upstream sees
// every caller of the gateway as one requestor. tasks/get, tasks/update
// and tasks/cancel with such an id go to that upstream, unwrapped, and
// their results come back with the id wrapped again; any other task id is
// the engine's own.
//
// Every other task runs here: the engine creates it, and its handler
// waits for the upstream's call (a legacy upstream's, or a legacy
// client's task on any upstream).

// taskSep separates the parts of a wrapped task id; upstream names cannot
// hold it.
const taskSep = "~"

// taskCancelTimeout bounds the tasks/cancel sent to an upstream when the
// downstream task that waits for its task is cancelled.
const taskCancelTimeout = 5 * time.Second

// declaresTasks reports whether a 2026-07-28 request's _meta declares the
// tasks extension.
func declaresTasks(m *mcp.RequestMetaObject) bool {
	if m == nil || m.ClientCapabilities == nil {
		return false
	}
	_, ok := m.ClientCapabilities.Extensions[server.ExtensionTasks]
	return ok
}

// runsHere reports whether a call that may become a task is one the
// gateway runs as its own task, rather than the upstream's.
func (u *upstream) runsHere(ctx context.Context, p *mcp.CallToolRequestParams) bool {
	s, err := u.session()
	if err != nil {
		return false
	}
	return !(s.Era() == mcp.EraModern && server.CanRequireInput(ctx) && declaresTasks(p.Meta))
}

func (u *upstream) tagKey() []byte {
	u.taskKeyOnce.Do(func() {
		u.taskKey = make([]byte, 32)
		_, _ = rand.Read(u.taskKey)
	})
	return u.taskKey
}

// tag binds an upstream task id to the caller ctx serves.
func (u *upstream) tag(ctx context.Context, id string) string {
	m := hmac.New(sha256.New, u.tagKey())
	m.Write([]byte(owner(ctx)))
	m.Write([]byte{0})
	m.Write([]byte(id))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil)[:12])
}

// owner names the caller ctx serves for the binding of its task ids:
// what a principal says of itself, or the subject and issuer the
// authorization rules see; "" for an anonymous caller.
func owner(ctx context.Context) string {
	switch p := server.PrincipalFrom(ctx).(type) {
	case nil:
		return ""
	case string:
		return "s:" + p
	case fmt.Stringer:
		return "t:" + p.String()
	}
	return "c:" + callerKey(callerOf(ctx))
}

// wrapTask is the id the downstream client knows the upstream's task by.
func (u *upstream) wrapTask(ctx context.Context, id string) string {
	return u.cfg.Name + taskSep + u.tag(ctx, id) + taskSep + id
}

// unwrapTask finds the upstream and its task id in a wrapped id, for the
// caller ctx serves; ok is false for an id the gateway did not hand this
// caller.
func (v *virtual) unwrapTask(ctx context.Context, wrapped string) (u *upstream, id string, ok bool) {
	name, rest, ok1 := strings.Cut(wrapped, taskSep)
	tag, id, ok2 := strings.Cut(rest, taskSep)
	if !ok1 || !ok2 {
		return nil, "", false
	}
	for _, c := range v.upstreams() {
		if c.cfg.Name == name {
			u = c
			break
		}
	}
	if u == nil || !hmac.Equal([]byte(tag), []byte(u.tag(ctx, id))) {
		return nil, "", false
	}
	return u, id, true
}

// callAsTask forwards a call the upstream may run as a task, and hands
// its answer on: a task handle as it came, with the id wrapped.
func (u *upstream) callAsTask(ctx, uctx context.Context, c *upcall, q *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	params, err := q.MarshalJSON()
	if err != nil {
		return nil, fmt.Errorf("upstream %s: tools/call %s: %w", u.cfg.Name, q.Name, err)
	}
	raw, err := c.s.Forward(uctx, mcp.MethodCallTool, params)
	if err != nil {
		return nil, c.failed(ctx, "tools/call", q.Name, err)
	}
	r := new(mcp.CallToolResult)
	if err := r.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("upstream %s: tools/call %s: the result does not decode: %w", u.cfg.Name, q.Name, err)
	}
	if r.ResultType != "task" {
		return r, nil
	}
	res, err := u.retagged(ctx, raw)
	if err != nil {
		return nil, fmt.Errorf("upstream %s: tools/call %s: %w", u.cfg.Name, q.Name, err)
	}
	return nil, server.RelayResult(res)
}

// retagged decodes an upstream's tasks result with its taskId, if it has
// one, wrapped.
func (u *upstream) retagged(ctx context.Context, raw []byte) (*mcp.Result, error) {
	res := new(mcp.Result)
	if err := res.UnmarshalJSON(raw); err != nil {
		return nil, fmt.Errorf("the result does not decode: %w", err)
	}
	if idRaw, ok := res.Extra["taskId"]; ok {
		var id string
		if err := json.Unmarshal(idRaw, &id); err != nil {
			return nil, fmt.Errorf("taskId: %w", err)
		}
		res.Extra["taskId"] = jsonrpc.AppendString(nil, u.wrapTask(ctx, id))
	}
	return res, nil
}

// followTask serves a call the gateway runs as its own task on a
// 2026-07-28 upstream: the upstream may run it as its task too, which is
// followed to its end, answering its questions through the downstream
// task; the upstream's task is cancelled when the downstream one is.
func (u *upstream) followTask(uctx context.Context, c *upcall, q *mcp.CallToolRequestParams) (*mcp.CallToolResult, error) {
	t, err := c.s.StartToolTask(uctx, q)
	if err != nil {
		return nil, c.failed(uctx, "tools/call", q.Name, err)
	}
	r, err := t.Wait(uctx)
	if err != nil && uctx.Err() != nil && t.ID() != "" {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(uctx), taskCancelTimeout)
		defer cancel()
		_ = t.Cancel(cctx)
	}
	if err != nil {
		return nil, c.failed(uctx, "tools/call", q.Name, err)
	}
	return r, nil
}

// taskMethods are the 2026-07-28 requests that name a task.
var taskMethods = map[string]bool{"tasks/get": true, "tasks/update": true, "tasks/cancel": true}

// relayTasks is the virtual server's middleware that sends the tasks/*
// requests naming an upstream's task to that upstream.
func (v *virtual) relayTasks(next server.HandlerFunc) server.HandlerFunc {
	return func(ctx context.Context, req *server.Request) (mcp.Message, error) {
		if req.Session != nil || !taskMethods[req.Method] {
			return next(ctx, req)
		}
		var params map[string]json.RawMessage
		if err := json.Unmarshal(req.Params, &params); err != nil {
			return next(ctx, req) // the engine says what is wrong with them
		}
		var wrapped string
		if err := json.Unmarshal(params["taskId"], &wrapped); err != nil {
			return next(ctx, req)
		}
		u, id, ok := v.unwrapTask(ctx, wrapped)
		if !ok || !declaresTasksRaw(params["_meta"]) {
			return next(ctx, req) // the engine's own task, or an unknown one, or a refusal
		}
		s, err := u.session()
		if err != nil {
			return nil, jsonrpc.ErrInternal(err.Error())
		}
		params["taskId"] = jsonrpc.AppendString(nil, id)
		delete(params, "_meta") // the gateway's client writes its own
		up, err := json.Marshal(params)
		if err != nil {
			return nil, jsonrpc.ErrInternal("cannot encode the params of " + req.Method + ": " + err.Error())
		}
		raw, err := s.Forward(ctx, req.Method, up)
		if err != nil {
			if e, ok := errors.AsType[*jsonrpc.Error](err); ok {
				return nil, e
			}
			return nil, fmt.Errorf("upstream %s: %s: %w", u.cfg.Name, req.Method, err)
		}
		res, err := u.retagged(ctx, raw)
		if err != nil {
			return nil, jsonrpc.ErrInternal(fmt.Sprintf("upstream %s: %s: %v", u.cfg.Name, req.Method, err))
		}
		return res, nil
	}
}

// declaresTasksRaw reports whether a request's raw _meta declares the
// tasks extension in its client capabilities.
func declaresTasksRaw(meta json.RawMessage) bool {
	var m struct {
		Caps struct {
			Extensions map[string]json.RawMessage `json:"extensions"`
		} `json:"io.modelcontextprotocol/clientCapabilities"`
	}
	if json.Unmarshal(meta, &m) != nil {
		return false
	}
	_, ok := m.Caps.Extensions[server.ExtensionTasks]
	return ok
}
