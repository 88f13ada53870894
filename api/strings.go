// SPDX-License-Identifier: Apache-2.0

package api

import "maps"

// DupStringSlice copies a string slice; nil stays nil, empty stays empty.
func DupStringSlice(in []string) []string {
	if in == nil {
		return nil
	}
	return append(make([]string, 0, len(in)), in...)
}

// DupStringMap copies a string map; nil stays nil, empty stays empty.
func DupStringMap(in map[string]string) map[string]string {
	if in == nil {
		return nil
	}
	return maps.Clone(in)
}
