package gateway

import (
	"fmt"
	"net/http"
	"os"
	"os/exec"

	"github.com/mcpgen/mcpgen/runtime/client"
	"github.com/mcpgen/mcpgen/runtime/jsonrpc"
	"github.com/mcpgen/mcpgen/runtime/streamable"
)

// dial opens the transport to the upstream.
func (u *upstream) dial() (jsonrpc.Transport, error) {
	if len(u.cfg.Command) > 0 {
		cmd := exec.Command(u.cfg.Command[0], u.cfg.Command[1:]...)
		cmd.Env = os.Environ()
		for k, v := range u.cfg.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		p, err := client.CommandTransport(cmd, &client.CommandOptions{
			Stderr:         &lineLog{log: u.log},
			MaxMessageSize: MaxMessageSize,
		})
		if err != nil {
			return nil, err
		}
		u.mu.Lock()
		u.proc = p
		u.mu.Unlock()
		return p, nil
	}
	h := http.Header{}
	for name, sec := range u.cfg.Headers {
		v, err := sec.value()
		if err != nil {
			return nil, fmt.Errorf("header %s: %w", name, err)
		}
		h.Set(name, v)
	}
	return streamable.NewClientTransport(u.cfg.URL, &streamable.ClientOptions{Header: h}), nil
}

// validateDial checks the upstream's transport and credential keys.
func (u *UpstreamConfig) validateDial(where string, bad badFunc) error {
	return nil
}

// UpstreamAuthConfig is the credential the gateway presents to an HTTP
// upstream.
type UpstreamAuthConfig struct{}
