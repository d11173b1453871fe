package gateway

// pinning checks upstream tool definitions against the lock file.
type pinning struct{}

func newPinning(cfg *Config) (*pinning, error) {
	return &pinning{}, nil
}

// quarantined returns the error a call of the tool name (as the virtual
// server lists it) gets while its definition is quarantined, nil when it
// is not.
func (v *virtual) quarantined(name string) error { return nil }

// quarantinedCount is how many tools are quarantined across the gateway.
func (g *Gateway) quarantinedCount() int { return 0 }
