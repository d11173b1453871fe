package streamable

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/mcpgen/mcpgen/generated/mcp"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/server"
)

// body is a POST body: one JSON-RPC message or a batch.
type body struct {
	frame    []byte
	msgs     []jsonrpc.Message
	batch    bool
	requests int              // how many of msgs are requests
	init     *jsonrpc.Message // the initialize request, when the body is one
}

// readBody reads and checks a POST body, or answers with an error and
// returns nil. legacy applies the legacy transport's rule on initialize in
// batches, which only a legacy request can break.
func (h *Handler) readBody(w http.ResponseWriter, r *http.Request, legacy bool) *body {
	data, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.opts.MaxBodyBytes))
	if err != nil {
		if _, ok := errors.AsType[*http.MaxBytesError](err); ok {
			httpError(w, http.StatusRequestEntityTooLarge, "the request body is larger than "+strconv.FormatInt(h.opts.MaxBodyBytes, 10)+" bytes, the limit set by streamable.HandlerOptions.MaxBodyBytes")
			return nil
		}
		httpError(w, http.StatusBadRequest, "cannot read the request body: "+err.Error())
		return nil
	}
	msgs, batch, err := jsonrpc.DecodeBatch(data)
	if err != nil {
		if e, ok := errors.AsType[*jsonrpc.Error](err); ok {
			var id jsonrpc.ID // the answer echoes the id when one could be read
			if !batch {
				m, _ := jsonrpc.DecodeMessage(data)
				id = m.ID
			}
			writeJSON(w, http.StatusBadRequest, jsonrpc.AppendError(nil, id, e))
			return nil
		}
		httpError(w, http.StatusBadRequest, err.Error())
		return nil
	}
	b := &body{frame: data, msgs: msgs, batch: batch}
	for i := range msgs {
		m := &msgs[i]
		if m.Kind() != jsonrpc.MessageRequest {
			continue
		}
		b.requests++
		if m.Method == mcp.MethodInitialize && legacy {
			if batch {
				httpError(w, http.StatusBadRequest, "initialize must not be part of a batch")
				return nil
			}
			b.init = m
		}
	}
	return b
}

// requestedVersion returns the protocolVersion an initialize request asks
// for.
func requestedVersion(init *jsonrpc.Message) mcp.ProtocolVersion {
	var p struct {
		ProtocolVersion string `json:"protocolVersion"`
	}
	json.Unmarshal(init.Params, &p)
	return mcp.ProtocolVersion(p.ProtocolVersion)
}

// post serves a POST: a request of the stateless era on its own, anything
// else on its legacy session. The era shows in the MCP-Protocol-Version
// header, or, for a client that sent an unknown version or none, in the
// body's _meta.
func (h *Handler) post(w http.ResponseWriter, r *http.Request, identity any, hv string) {
	accept := r.Header.Values("Accept")
	if !accepts(accept, "application/json") || !accepts(accept, "text/event-stream") {
		httpError(w, http.StatusNotAcceptable, "the Accept header must list both application/json and text/event-stream")
		return
	}
	if !isJSON(r.Header.Get("Content-Type")) {
		httpError(w, http.StatusUnsupportedMediaType, "the body must be application/json")
		return
	}
	b := h.readBody(w, r, !modernHeader(hv))
	if b == nil || b.requests > 0 && h.refuseDraining(w) {
		return
	}
	if modernHeader(hv) || len(b.msgs) == 1 && b.msgs[0].Kind() == jsonrpc.MessageRequest && server.StatelessRequest(b.msgs[0].Method, b.msgs[0].Params) {
		h.postCall(w, r, b, identity)
		return
	}
	version, ok := legacyVersion(w, hv)
	if !ok {
		return
	}
	if h.opts.Stateless {
		h.postStateless(w, r, b, identity, version)
		return
	}
	var s *session
	if b.init != nil && r.Header.Get(headerSessionID) == "" {
		if s = h.newSession(w, b.init, identity); s == nil {
			return
		}
		if v := requestedVersion(b.init); v.Supported() {
			version = v // the client understands what it asks for
		}
	} else if s = h.session(w, r, identity); s == nil {
		return
	}
	defer s.release()
	if b.batch {
		if v := s.protocolVersion(); v != mcp.Version20250326 {
			httpError(w, http.StatusBadRequest, "batches are not supported in protocol version "+quote(string(v)))
			return
		}
	}
	h.exchange(w, r, s, b, identity, version, h.opts.JSONResponse)
}

// newSession starts a session for an initialize request and names it in
// the response headers, or answers with an error and returns nil. The
// session is returned acquired. It is counted against the caps before
// anything is recorded, so a refusal leaves no trace.
func (h *Handler) newSession(w http.ResponseWriter, init *jsonrpc.Message, owner any) *session {
	s := newSession(h, newSessionID())
	s.owner = owner
	s.record = SessionRecord{ID: s.id, Initialize: bytes.Clone(init.Params), Created: time.Now()}
	key, shareable := ownerKey(owner)
	s.record.Owner, s.record.Unshared = key, !shareable
	s.acquire()
	if err := h.start(s); err != nil {
		if e, ok := err.(*capError); ok {
			h.log.Debug("streamable: session refused", "err", err)
			e.write(w, init.ID)
			return nil
		}
		httpError(w, http.StatusServiceUnavailable, "the server is shutting down")
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := h.sessions.Create(ctx, s.record); err != nil {
		h.log.Error("streamable: cannot record a new session", "err", err)
		h.end(s)
		w.Header().Set("Retry-After", "1")
		httpError(w, http.StatusServiceUnavailable, "cannot start a session: the session store cannot be reached; try again")
		return nil
	}
	w.Header().Set(headerSessionID, s.id)
	return s
}

// exchange feeds a POST body to a session and answers with what its
// requests cause: 202 when it holds none, else their responses as JSON or
// on an SSE stream.
func (h *Handler) exchange(w http.ResponseWriter, r *http.Request, s *session, b *body, identity any, version mcp.ProtocolVersion, asJSON bool) {
	for i := range b.msgs {
		if m := &b.msgs[i]; m.Kind() == jsonrpc.MessageNotification && m.Method == mcp.MethodCancelledNotification {
			if id, err := server.CancelledRequestID(m.Params); err == nil {
				s.cancelled(id)
			}
		}
	}
	clustered := h.clustered() && s.id != ""
	if clustered && b.init == nil {
		if err := s.initializeOnce(r.Context(), b); err != nil {
			h.feedFailed(w, err)
			return
		}
	}
	if b.requests == 0 {
		if clustered {
			h.relayIncoming(r.Context(), s, b)
			defer s.answered(b.msgs)
		}
		if err := s.feed(r.Context(), b.frame); err != nil {
			h.feedFailed(w, err)
			return
		}
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if h.refuseScopes(w, r, b, identity) {
		return
	}
	if clustered {
		h.share(r.Context(), s, b)
	}
	prime := !asJSON && version >= mcp.Version20251125
	st, err := s.open(b, r, identity, asJSON, prime)
	if err != nil {
		if dup, ok := err.(errDuplicateID); ok {
			writeJSON(w, http.StatusBadRequest, jsonrpc.AppendError(nil, dup.id, jsonrpc.NewError(jsonrpc.CodeInvalidRequest, dup.Error())))
			return
		}
		h.feedFailed(w, err)
		return
	}
	if err := s.feed(r.Context(), b.frame); err != nil {
		s.abandon(st)
		h.feedFailed(w, err)
		return
	}
	if asJSON {
		h.replyJSON(w, r, s, st)
		return
	}
	primingID := ""
	if prime {
		primingID = eventID(st.num, 1)
	}
	h.pump(w, r, s, st, primingID)
}

func (h *Handler) feedFailed(w http.ResponseWriter, err error) {
	if errors.Is(err, errDraining) {
		refuseShuttingDown(w)
		return
	}
	if errors.Is(err, errSessionClosed) {
		httpError(w, http.StatusNotFound, "the session has ended: send initialize to start a new one")
	}
	// Otherwise the client has gone: nobody reads an answer.
}

// replyJSON waits for the responses of a stream and sends them as one
// application/json body.
func (h *Handler) replyJSON(w http.ResponseWriter, r *http.Request, s *session, st *stream) {
	var frames [][]byte
	for {
		q, finished := s.take(st)
		frames = append(frames, q...)
		if finished {
			break
		}
		select {
		case <-st.wake:
			continue
		case <-s.closed:
		case <-r.Context().Done():
			return // the responses, when they come, finish st unread
		}
		q, _ = s.take(st)
		frames = append(frames, q...)
		break
	}
	switch len(frames) {
	case 0:
		if s.isClosed() {
			httpError(w, http.StatusNotFound, "the session ended before the response was ready")
			return
		}
		w.WriteHeader(http.StatusAccepted) // every request was cancelled
	case 1:
		writeJSON(w, http.StatusOK, frames[0])
	default:
		out := []byte{'['}
		for i, f := range frames {
			if i > 0 {
				out = append(out, ',')
			}
			out = append(out, bytes.Trim(f, "[]")...)
		}
		writeJSON(w, http.StatusOK, append(out, ']'))
	}
}

// pump writes a stream out as SSE until it is complete, the session ends
// or the client goes away. A client that goes away has not cancelled
// anything: the stream carries on into the EventStore, for the client to
// resume.
//
// What is written is flushed before pump waits for more; the last events
// are not, since returning ends the response, and net/http sends them
// with the end of the body in one write: a request answered at once
// takes one write in all, one answered later two.
func (h *Handler) pump(w http.ResponseWriter, r *http.Request, s *session, st *stream, primingID string) {
	rc := http.NewResponseController(w)
	startSSE(w)
	if primingID != "" {
		w.Write(appendPriming(nil, primingID, h.opts.RetryInterval))
	}
	ended, pending := false, true // pending: written since the last flush
	for {
		q, finished := s.take(st)
		n := 0
		for _, ev := range q {
			if _, err := w.Write(ev); err != nil {
				s.detach(st)
				return
			}
			n += len(ev)
		}
		s.sent(st, n)
		if finished || ended {
			return
		}
		if (pending || len(q) > 0) && rc.Flush() != nil {
			s.detach(st)
			return
		}
		pending = false
		select {
		case <-st.wake:
		case <-s.closed:
			ended = true // write what is left, then stop
		case <-r.Context().Done():
			s.detach(st)
			return
		}
	}
}

// postStateless serves a POST on a session of its own.
func (h *Handler) postStateless(w http.ResponseWriter, r *http.Request, b *body, identity any, version mcp.ProtocolVersion) {
	if b.requests == 0 {
		w.WriteHeader(http.StatusAccepted) // there is no session for them to affect
		return
	}
	if b.batch && version != mcp.Version20250326 {
		httpError(w, http.StatusBadRequest, "batches are not supported in protocol version "+string(version))
		return
	}
	s := newSession(h, "")
	if err := h.start(s); err != nil {
		httpError(w, http.StatusServiceUnavailable, "the server is shutting down")
		return
	}
	defer func() {
		h.end(s)
		<-s.done
	}()
	if b.init == nil {
		if err := h.initialize(r.Context(), s, version); err != nil {
			if errors.Is(err, errDraining) {
				refuseShuttingDown(w)
			} else if r.Context().Err() == nil {
				httpError(w, http.StatusInternalServerError, "cannot start a session: "+err.Error())
			}
			return
		}
	}
	h.exchange(w, r, s, b, identity, version, true)
}

// initialize brings a stateless session's engine to the state a client's
// initialize and notifications/initialized would: the client speaks
// version and declares no capabilities. The response is dropped.
func (h *Handler) initialize(ctx context.Context, s *session, version mcp.ProtocolVersion) error {
	frame := jsonrpc.AppendRequest(nil, jsonrpc.StringID("mcpgen-stateless-initialize"), mcp.MethodInitialize,
		[]byte(`{"protocolVersion":"`+string(version)+`","capabilities":{},"clientInfo":{"name":"stateless-client","version":"0"}}`))
	if err := h.swallow(ctx, s, frame); err != nil {
		return err
	}
	if s.protocolVersion() == "" {
		return errors.New("the engine refused initialize")
	}
	return s.feed(ctx, jsonrpc.AppendNotification(nil, mcp.MethodInitializedNotification, nil))
}
