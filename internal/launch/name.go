// SPDX-License-Identifier: Apache-2.0

package launch

import (
	"fmt"
	"strings"

	"github.com/nrikit/nrikit/api"
)

// SplitName splits a plugin file name into its index and name.
//
// The format is <idx>-<name>, split at the FIRST '-' so that names may
// themselves contain dashes ("10-log-all" is index "10", name "log-all").
// The index must be exactly two ASCII digits, because plugins are ordered by
// comparing indices as strings. The name must pass api.ValidatePluginName,
// the rule for external plugins' names ([a-zA-Z0-9_.+-], at most
// api.MaxPluginNameLen bytes): the reference does not check pre-installed
// names, but a name goes into logs, metrics, ownership records and the
// plugin's environment, where a newline or a control character in a file
// name would forge or break lines.
func SplitName(base string) (idx, name string, err error) {
	idx, name, ok := strings.Cut(base, "-")
	if !ok {
		return "", "", fmt.Errorf("plugin file name %q: missing '-' between index and name (want <idx>-<name>, e.g. 10-foo)", base)
	}
	if len(idx) != 2 {
		return "", "", fmt.Errorf("plugin file name %q: index %q must be exactly 2 digits", base, idx)
	}
	if !isDigit(idx[0]) || !isDigit(idx[1]) {
		return "", "", fmt.Errorf("plugin file name %q: index %q is not [0-9][0-9]", base, idx)
	}
	if name == "" {
		return "", "", fmt.Errorf("plugin file name %q: name after index %q is empty", base, idx)
	}
	if err := api.ValidatePluginName(name); err != nil {
		return "", "", fmt.Errorf("plugin file name %q: %w", base, err)
	}
	return idx, name, nil
}

// isDigit is ASCII-only on purpose: unicode.IsDigit would accept digits from
// other scripts, which would break string ordering of indices.
func isDigit(b byte) bool { return b >= '0' && b <= '9' }
