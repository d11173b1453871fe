package main

import (
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/mcpgen/mcpgen/runtime/server"
)

// stateKeyEnv names the environment variable that holds the key sealing
// requestState and cursors, as hex: replicas behind one endpoint share
// it, so that an input_required round started on one replica is
// completed on another, and a cursor one replica made pages on all.
// Without it each process seals with a random key of its own.
const stateKeyEnv = "EVERYTHING_STATE_KEY"

// setStateKey gives srv the key of stateKeyEnv, when it is set. The
// variable may hold several keys separated by commas, the first sealing
// and all opening, so that a key can be rotated without failing the
// states in flight.
func setStateKey(srv *server.Server, getenv func(string) string) error {
	keys, err := stateKeys(getenv)
	if err != nil || keys == nil {
		return err
	}
	return srv.SetStateKeys(keys...)
}

// stateKeys returns the keys of stateKeyEnv, nil when it is unset.
func stateKeys(getenv func(string) string) ([][]byte, error) {
	v := getenv(stateKeyEnv)
	if v == "" {
		return nil, nil
	}
	var keys [][]byte
	for i, h := range strings.Split(v, ",") {
		k, err := hex.DecodeString(h)
		if err != nil || len(k) != 32 {
			// The value is a secret: say what is wrong, not what it is.
			return nil, fmt.Errorf("%s: key %d is not 64 hex digits (32 bytes)", stateKeyEnv, i+1)
		}
		keys = append(keys, k)
	}
	return keys, nil
}
