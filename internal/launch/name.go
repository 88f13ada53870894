package launch

import (
	"fmt"
	"strings"
)

// SplitName splits a plugin file name into its index and name.
//
// The format is <idx>-<name>, split at the FIRST '-' so that names may
// themselves contain dashes ("10-log-all" is index "10", name "log-all").
// The index must be exactly two ASCII digits, because plugins are ordered by
// comparing indices as strings; the name must be non-empty but is otherwise
// not restricted (the reference does not restrict pre-installed names either,
// and renaming a working plugin file should not be forced on operators).
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
	return idx, name, nil
}

// isDigit is ASCII-only on purpose: unicode.IsDigit would accept digits from
// other scripts, which would break string ordering of indices.
func isDigit(b byte) bool { return b >= '0' && b <= '9' }
