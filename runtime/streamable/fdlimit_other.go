//go:build !unix

package streamable

// fdLimit returns 0: the limit is not known here.
func fdLimit() int { return 0 }
