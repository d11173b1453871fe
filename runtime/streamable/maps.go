package streamable

// deleteShrink deletes k from m and, once deletions have left m at a
// quarter of the most it held, returns a fresh copy: Go maps never give
// their buckets back, and a server whose sessions came and went should
// return to the memory it started with. peak tracks the most m held.
func deleteShrink[K comparable, V any](m map[K]V, k K, peak *int) map[K]V {
	if len(m) > *peak {
		*peak = len(m)
	}
	delete(m, k)
	if *peak < 64 || len(m) > *peak/4 {
		return m
	}
	c := make(map[K]V, len(m))
	for key, v := range m {
		c[key] = v
	}
	*peak = len(m)
	return c
}
