package metadata

// ProtectedResourceURLs returns the well-known URLs a client tries, in
// order, for the metadata of resource when the server's challenge names
// none: the path-inserted URL, then, for a resource with a path, the one at
// the root of its origin.
func ProtectedResourceURLs(resource string) ([]string, error) {
	first, err := ProtectedResourceURL(resource)
	if err != nil {
		return nil, err
	}
	root, err := ProtectedResourceRootURL(resource)
	if err != nil {
		return nil, err
	}
	if root == first {
		return []string{first}, nil
	}
	return []string{first, root}, nil
}
