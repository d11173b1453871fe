package streamable

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"
)

// bearer is an Authenticate whose identity is the bearer token.
func bearer(r *http.Request) (any, error) {
	tok, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return nil, errors.New("a bearer token is required")
	}
	return "user:" + tok, nil
}

// initializeAs starts a session with the Authorization header of hdr;
// it returns the session's id, or the status and body of the refusal.
func (c *client) initializeAs(hdr ...string) (sid string, status int, body string) {
	c.t.Helper()
	resp := c.do("POST", initBody("2025-06-18", ""), hdr...)
	if resp.StatusCode != http.StatusOK {
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return "", resp.StatusCode, string(b)
	}
	messages(c.t, resp)
	return resp.Header.Get("Mcp-Session-Id"), resp.StatusCode, ""
}

// echoIn calls echo in the session sid.
func (c *client) echoIn(sid, text string, hdr ...string) string {
	c.t.Helper()
	d := *c
	d.sid, d.version = sid, "2025-06-18"
	d.status("POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, hdr...)
	msgs := messages(c.t, d.do("POST", callBody(1, "echo", `{"text":"`+text+`"}`), hdr...))
	if len(msgs) != 1 {
		return fmt.Sprint(msgs)
	}
	return msgs[0]
}

func TestMaxSessions(t *testing.T) {
	h, ts := serve(t, &HandlerOptions{MaxSessions: 2})
	c := newClient(t, ts)
	a, _, _ := c.initializeAs()
	b, _, _ := c.initializeAs()
	if a == "" || b == "" {
		t.Fatal("the sessions under the cap were refused")
	}
	_, status, body := c.initializeAs()
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "HandlerOptions.MaxSessions") || !strings.Contains(body, `"id":0`) {
		t.Fatalf("a session over the cap: %d %s", status, body)
	}
	if n := h.sessions.(*MemorySessionStore).Len(); n != 2 {
		t.Fatalf("%d session records after a refusal, want 2", n)
	}
	if got := c.echoIn(a, "still here"); !strings.Contains(got, "still here") {
		t.Fatalf("a session under the cap after a refusal: %s", got)
	}
	d := *c
	d.sid = a
	if code, _ := d.status("DELETE", ""); code != http.StatusNoContent {
		t.Fatalf("DELETE: %d", code)
	}
	if sid, status, body := c.initializeAs(); sid == "" {
		t.Fatalf("the freed slot: %d %s", status, body)
	}
}

func TestMaxSessionsPerIdentity(t *testing.T) {
	_, ts := serve(t, &HandlerOptions{Authenticate: bearer, MaxSessionsPerIdentity: 2})
	c := newClient(t, ts)
	ada := []string{"Authorization", "Bearer ada"}
	eve := []string{"Authorization", "Bearer eve"}
	first, _, _ := c.initializeAs(ada...)
	if s, _, _ := c.initializeAs(ada...); first == "" || s == "" {
		t.Fatal("ada's sessions under the cap were refused")
	}
	_, status, body := c.initializeAs(ada...)
	if status != http.StatusTooManyRequests || !strings.Contains(body, "HandlerOptions.MaxSessionsPerIdentity") {
		t.Fatalf("ada's session over her cap: %d %s", status, body)
	}
	if s, status, body := c.initializeAs(eve...); s == "" {
		t.Fatalf("eve was refused for ada's sessions: %d %s", status, body)
	}
	if got := c.echoIn(first, "ada", ada...); !strings.Contains(got, `"ada"`) {
		t.Fatalf("ada's session after the refusal: %s", got)
	}
	d := *c
	d.sid = first
	d.status("DELETE", "", ada...)
	if s, status, body := c.initializeAs(ada...); s == "" {
		t.Fatalf("ada's freed slot: %d %s", status, body)
	}
}

// TestEndSessions ends the sessions of one identity, as for revoked
// credentials: its requests find no session, and another's go on.
func TestEndSessions(t *testing.T) {
	h, ts := serve(t, &HandlerOptions{Authenticate: bearer})
	c := newClient(t, ts)
	ada := []string{"Authorization", "Bearer ada"}
	eve := []string{"Authorization", "Bearer eve"}
	a1, _, _ := c.initializeAs(ada...)
	a2, _, _ := c.initializeAs(ada...)
	e1, _, _ := c.initializeAs(eve...)
	if a1 == "" || a2 == "" || e1 == "" || h.SessionCount() != 3 {
		t.Fatalf("sessions %q %q %q, %d running: want three", a1, a2, e1, h.SessionCount())
	}
	if n := h.EndSessions(func(owner any) bool { return owner == "user:ada" }); n != 2 {
		t.Fatalf("EndSessions ended %d sessions, want ada's 2", n)
	}
	for _, sid := range []string{a1, a2} {
		d := *c
		d.sid, d.version = sid, "2025-06-18"
		if code, _ := d.status("POST", callBody(1, "echo", `{"text":"x"}`), ada...); code != http.StatusNotFound {
			t.Errorf("a request in an ended session: %d, want 404", code)
		}
	}
	if got := c.echoIn(e1, "eve", eve...); !strings.Contains(got, `"eve"`) {
		t.Fatalf("eve's session after ada's ended: %s", got)
	}
	if n := h.SessionCount(); n != 1 {
		t.Fatalf("%d sessions running, want eve's 1", n)
	}
}

func TestLegacyEndSessions(t *testing.T) {
	h, ts := serveLegacy(t, &LegacyOptions{Authenticate: bearer})
	ada := []string{"Authorization", "Bearer ada"}
	eve := []string{"Authorization", "Bearer eve"}
	a1 := openLegacy(t, ts.URL, ada...)
	e1 := openLegacy(t, ts.URL, eve...)
	if n := h.EndSessions(func(owner any) bool { return owner == "user:ada" }); n != 1 {
		t.Fatalf("EndSessions ended %d sessions, want ada's 1", n)
	}
	if code, _ := a1.post(t, ts.URL, initBody("2024-11-05", ""), ada...); code != http.StatusNotFound {
		t.Errorf("a POST to an ended session: %d, want 404", code)
	}
	if code, body := e1.post(t, ts.URL, initBody("2024-11-05", ""), eve...); code != http.StatusAccepted {
		t.Fatalf("eve's session after ada's ended: %d %s", code, body)
	}
	if n := h.SessionCount(); n != 1 {
		t.Fatalf("%d sessions running, want eve's 1", n)
	}
}

func TestLegacyMaxSessions(t *testing.T) {
	h, ts := serveLegacy(t, &LegacyOptions{Authenticate: bearer, MaxSessions: 3, MaxSessionsPerIdentity: 2})
	ada := []string{"Authorization", "Bearer ada"}
	eve := []string{"Authorization", "Bearer eve"}
	refused := func(want int, option string, hdr ...string) {
		t.Helper()
		resp, cancel := getLegacy(t, ts.URL, hdr...)
		defer cancel()
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want || !strings.Contains(string(b), "LegacyOptions."+option) {
			t.Fatalf("GET over the %s cap: %s %s", option, resp.Status, b)
		}
	}
	a1 := openLegacy(t, ts.URL, ada...)
	openLegacy(t, ts.URL, ada...)
	refused(http.StatusTooManyRequests, "MaxSessionsPerIdentity", ada...)
	e1 := openLegacy(t, ts.URL, eve...)
	refused(http.StatusServiceUnavailable, "MaxSessions", eve...)

	if code, body := a1.post(t, ts.URL, initBody("2024-11-05", ""), ada...); code != http.StatusAccepted {
		t.Fatalf("a session under the cap after the refusals: %d %s", code, body)
	}
	if name, data := a1.next(t); name != "message" || !strings.Contains(data, "2024-11-05") {
		t.Fatalf("initialize answered %q %q", name, data)
	}
	e1.close()
	eventually(t, "the closed stream's session to end", func() bool { return h.SessionCount() == 2 })
	openLegacy(t, ts.URL, eve...) // its slot is free again
}

// TestMemoryEventStoreTotalBound appends to and forgets sessions at
// random, checking the store against a model that keeps every event in
// order and drops the oldest first: a session's when it passes its bound,
// any session's when the total does.
func TestMemoryEventStoreTotalBound(t *testing.T) {
	const perSession, total = 20 * (eventOverhead + 10), 50 * (eventOverhead + 10)
	m := NewMemoryEventStore(perSession, total)
	ctx := context.Background()
	type modelEvent struct {
		session string
		e       Event
	}
	var model []modelEvent // every event kept, oldest first
	bytesOf := func(session string) (n int) {
		for _, me := range model {
			if session == "" || me.session == session {
				n += cost(me.e)
			}
		}
		return n
	}
	dropFirst := func(session string) {
		for i, me := range model {
			if session == "" || me.session == session {
				model = append(model[:i:i], model[i+1:]...)
				return
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var seq uint64
	for step := range 3000 {
		session := fmt.Sprint("s", rng.IntN(8))
		if rng.IntN(50) == 0 {
			m.Forget(ctx, session)
			kept := model[:0:0]
			for _, me := range model {
				if me.session != session {
					kept = append(kept, me)
				}
			}
			model = kept
			continue
		}
		seq++
		e := Event{Stream: uint64(rng.IntN(2)), Seq: seq, Data: make([]byte, rng.IntN(30))}
		m.Append(ctx, session, e)
		model = append(model, modelEvent{session, e})
		for bytesOf(session) > perSession {
			dropFirst(session)
		}
		for bytesOf("") > total {
			dropFirst("")
		}
		if got, want := m.Bytes(), bytesOf(""); got != want || got > total {
			t.Fatalf("step %d: the store holds %d bytes, want %d (bound %d)", step, got, want, total)
		}
		if step%20 != 0 {
			continue
		}
		for i := range 8 {
			s := fmt.Sprint("s", i)
			for stream := range uint64(2) {
				got, _ := m.After(ctx, s, stream, 0)
				var want []Event
				for _, me := range model {
					if me.session == s && me.e.Stream == stream {
						want = append(want, me.e)
					}
				}
				if fmt.Sprint(got) != fmt.Sprint(want) {
					t.Fatalf("step %d: After(%s, %d) = %v, want %v", step, s, stream, got, want)
				}
			}
		}
	}
}
