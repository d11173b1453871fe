package metadata

import (
	"context"
	"errors"
	"fmt"
)

// Fetch reads the JSON document at url into v. It reports found false,
// with no error, when the server has no document there (a 4xx answer),
// which sends discovery on to the next URL; any other failure is an
// error.
type Fetch func(ctx context.Context, url string, v any) (found bool, err error)

// ErrNoMetadata is wrapped by the error of DiscoverAuthorizationServer
// when none of the well-known URLs has a document.
var ErrNoMetadata = errors.New("metadata: no authorization server metadata at any well-known URL")

// DiscoverAuthorizationServer reads the metadata of the authorization
// server whose issuer identifier is issuer: it tries
// AuthorizationServerURLs in order with fetch and returns the first
// document found. A document that names another issuer is refused
// (ErrIssuerMismatch), not skipped, since it may be an attacker's; a
// failure to fetch one URL moves on to the next, and is reported with the
// rest when no URL has a document.
func DiscoverAuthorizationServer(ctx context.Context, issuer string, fetch Fetch) (*AuthorizationServer, error) {
	urls, err := AuthorizationServerURLs(issuer)
	if err != nil {
		return nil, err
	}
	var errs []error
	for _, u := range urls {
		var m AuthorizationServer
		found, err := fetch(ctx, u, &m)
		switch {
		case err != nil:
			errs = append(errs, err)
			continue
		case !found:
			continue
		}
		if err := m.CheckIssuer(issuer); err != nil {
			return nil, fmt.Errorf("%s: %w", u, err)
		}
		return &m, nil
	}
	return nil, errors.Join(append([]error{fmt.Errorf("%w for %s", ErrNoMetadata, issuer)}, errs...)...)
}
