// SPDX-License-Identifier: Apache-2.0

package launch

import (
	"strings"
	"testing"

	"github.com/nrikit/nrikit/api"
)

func TestSplitName(t *testing.T) {
	for _, tc := range []struct {
		base, idx, name string
		err             string // substring of the error; "" means success
	}{
		{base: "10-foo", idx: "10", name: "foo"},
		{base: "00-a", idx: "00", name: "a"},
		{base: "99-log-all", idx: "99", name: "log-all"}, // split at the first '-'
		{base: "10--", idx: "10", name: "-"},
		{base: "10-a.b+c_d", idx: "10", name: "a.b+c_d"},
		{base: "1-x", err: `plugin file name "1-x": index "1" must be exactly 2 digits`},
		{base: "100-x", err: `plugin file name "100-x": index "100" must be exactly 2 digits`},
		{base: "abc-x", err: `plugin file name "abc-x": index "abc" must be exactly 2 digits`},
		{base: "-x", err: `index "" must be exactly 2 digits`},
		{base: "ab-x", err: `plugin file name "ab-x": index "ab" is not [0-9][0-9]`},
		{base: "1a-x", err: `index "1a" is not [0-9][0-9]`},
		{base: "٠١-x", err: `must be exactly 2 digits`},   // two non-ASCII digits are 4 bytes
		{base: "٠-x", err: `index "٠" is not [0-9][0-9]`}, // one is 2 bytes, but not ASCII
		{base: "10-", err: `plugin file name "10-": name after index "10" is empty`},
		{base: "10x", err: `plugin file name "10x": missing '-'`},
		{base: "", err: `missing '-'`},
		// The rules external plugins' names follow.
		{base: "31-a\nb", err: `plugin file name "31-a\nb": nrikit: invalid plugin name "a\nb": character '\n' at byte 1 is not one of [a-zA-Z0-9_.+-]`},
		{base: "10-a b", err: `character ' ' at byte 1`},
		{base: "10-caf\xe9", err: "character '\ufffd' at byte 3"},
		{base: "10-é", err: `character 'é' at byte 0`},
		{base: "10-" + strings.Repeat("x", 257), err: `257 bytes, more than 256`},
		{base: "10-" + strings.Repeat("x", 256), idx: "10", name: strings.Repeat("x", 256)},
	} {
		idx, name, err := SplitName(tc.base)
		if tc.err == "" {
			if err != nil || idx != tc.idx || name != tc.name {
				t.Errorf("SplitName(%q) = %q, %q, %v; want %q, %q, nil", tc.base, idx, name, err, tc.idx, tc.name)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("SplitName(%q) error = %v; want it to contain %q", tc.base, err, tc.err)
		}
		if idx != "" || name != "" {
			t.Errorf("SplitName(%q) returned %q, %q with an error", tc.base, idx, name)
		}
	}
}

func FuzzSplitName(f *testing.F) {
	for _, s := range []string{"10-foo", "1-x", "100-x", "10-", "10x", "ab-c", "10-a-b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, base string) {
		idx, name, err := SplitName(base)
		if err != nil {
			if !strings.Contains(err.Error(), "plugin file name") {
				t.Fatalf("error %q does not say what it is about", err)
			}
			return
		}
		if len(idx) != 2 || !isDigit(idx[0]) || !isDigit(idx[1]) || idx+"-"+name != base || api.ValidatePluginName(name) != nil {
			t.Fatalf("SplitName(%q) = %q, %q: invalid split", base, idx, name)
		}
	})
}
