package gateway

// validateCache checks a virtual server's cache section.
func (s *ServerConfig) validateCache(where string, bad badFunc) error {
	return nil
}

// CacheConfig says how long a virtual server keeps list results.
type CacheConfig struct{}
