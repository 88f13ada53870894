// SPDX-License-Identifier: Apache-2.0

package ocispec

import (
	"strings"

	rspec "github.com/opencontainers/runtime-spec/specs-go"

	"github.com/nrikit/nrikit/api"
)

// planEnv converts env entries to "NAME=value"; "-NAME" removes NAME.
func planEnv(in []*api.KeyValue) (listEdit[string], error) {
	for _, kv := range in {
		if strings.ContainsAny(kv.GetKey(), "=\x00") {
			return listEdit[string]{}, invalid("environment variable name %q contains '=' or NUL", kv.GetKey())
		}
	}
	return planList("environment variable", in, (*api.KeyValue).GetKey,
		func(kv *api.KeyValue) (string, error) {
			if strings.ContainsRune(kv.Value, 0) {
				return "", invalid("value contains NUL")
			}
			return kv.Key + "=" + kv.Value, nil
		})
}

// applyEnv creates the process only for a variable to set: removing from a
// spec without a process changes nothing.
func applyEnv(spec *rspec.Spec, e listEdit[string]) {
	if len(e.set) == 0 && spec.Process == nil {
		return
	}
	p := ensureProcess(spec)
	p.Env = e.apply(p.Env, envName)
}

// envName is the name part of a "NAME=value" entry.
func envName(e string) string {
	name, _, _ := strings.Cut(e, "=")
	return name
}
