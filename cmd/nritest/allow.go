// SPDX-License-Identifier: Apache-2.0

// --allow: running the plugins under an operator's scope (plugin_settings allow).

package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/nrikit/nrikit/adaptation"
)

// allowFlag is --allow KEY=CLASS[,CLASS...], once per plugin: KEY is a
// plugin_settings key ("20-annotator" or "annotator"), the classes what
// that plugin may change ("KEY=" for nothing).
type allowFlag struct{ scopes *map[string][]string }

func (f allowFlag) String() string {
	if f.scopes == nil {
		return ""
	}
	var parts []string
	for _, key := range slices.Sorted(maps.Keys(*f.scopes)) {
		parts = append(parts, key+"="+strings.Join((*f.scopes)[key], ","))
	}
	return strings.Join(parts, " ")
}

func (f allowFlag) Set(v string) error {
	key, list, ok := strings.Cut(v, "=")
	if !ok || key == "" {
		return fmt.Errorf("%q is not KEY=CLASS[,CLASS...]", v)
	}
	classes := []string{} // "KEY=": nothing
	if list != "" {
		classes = strings.Split(list, ",")
	}
	for _, c := range classes {
		if !slices.Contains(adaptation.AllowClasses(), c) {
			return fmt.Errorf("%q is not a class of changes; the classes are %s", c, strings.Join(adaptation.AllowClasses(), ", "))
		}
	}
	if *f.scopes == nil {
		*f.scopes = map[string][]string{}
	}
	if _, dup := (*f.scopes)[key]; dup {
		return fmt.Errorf("%s given twice", key)
	}
	(*f.scopes)[key] = classes
	return nil
}
