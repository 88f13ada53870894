// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"errors"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/api"
)

func TestOwners(t *testing.T) {
	const f = api.Field_Annotations
	cases := []struct {
		name  string
		run   func(o *owners) error
		err   string
		owner string // owner of ctr0/annotation "k" afterwards
	}{
		{"claim", func(o *owners) error { return o.claim(ctrID, f, "k", pa) }, "", pa},
		{"claim twice by one plugin", func(o *owners) error {
			_ = o.claim(ctrID, f, "k", pa)
			return o.claim(ctrID, f, "k", pa)
		}, `plugin "10-a" tried to set annotation "k" twice`, pa},
		{"claim by another", func(o *owners) error {
			_ = o.claim(ctrID, f, "k", pa)
			return o.claim(ctrID, f, "k", pb)
		}, `plugins "10-a" and "20-b" both tried to set annotation "k"`, pa},
		{"clear never conflicts", func(o *owners) error {
			_ = o.claim(ctrID, f, "k", pa)
			o.clear(ctrID, f, "k", pb)
			return nil
		}, "", "-" + pb},
		{"clearer may claim", func(o *owners) error {
			o.clear(ctrID, f, "k", pb)
			return o.claim(ctrID, f, "k", pb)
		}, "", pb},
		{"others conflict with the clearer", func(o *owners) error {
			o.clear(ctrID, f, "k", pb)
			return o.claim(ctrID, f, "k", pa)
		}, `plugins "20-b" and "10-a"`, "-" + pb},
		{"keys and containers are independent", func(o *owners) error {
			_ = o.claim(ctrID, f, "j", pa)
			_ = o.claim("other", f, "k", pa)
			return o.claim(ctrID, f, "k", pb)
		}, "", pb},
		{"the first container's table survives a second's", func(o *owners) error {
			_ = o.claim("other", f, "k", pa)
			_ = o.claim(ctrID, f, "k", pa)
			return o.claim("other", f, "k", pb)
		}, `plugins "10-a" and "20-b" both tried to set annotation "k"`, pa},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			o := &owners{}
			err := tc.run(o)
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("error: %v", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error = %v, want %q", err, tc.err)
			case tc.err != "" && !errors.Is(err, ErrConflict):
				t.Fatalf("error %v does not wrap ErrConflict", err)
			}
			if got := owner(o.proto(), ctrID, f, "k"); got != tc.owner {
				t.Errorf("owner = %q, want %q", got, tc.owner)
			}
		})
	}
}

func TestOwnersAccumulateAndProto(t *testing.T) {
	o := &owners{}
	o.accumulate(ctrID, api.Field_OciHooks, pa)
	o.accumulate(ctrID, api.Field_OciHooks, pb)
	o.accumulate(ctrID, api.Field_OciHooks, pb)
	if err := o.claim(ctrID, api.Field_MemLimit, "", pa); err != nil {
		t.Fatal(err)
	}
	if err := o.claim("c1", api.Field_Mounts, "/m", pb); err != nil {
		t.Fatal(err)
	}
	want := &api.OwningPlugins{Owners: map[string]*api.FieldOwners{
		ctrID: {Simple: map[int32]string{int32(api.Field_OciHooks): "10-a,20-b", int32(api.Field_MemLimit): pa}},
		"c1": {Compound: map[int32]*api.CompoundFieldOwners{
			int32(api.Field_Mounts): {Owners: map[string]string{"/m": pb}},
		}},
	}}
	mustEqual(t, "owners", o.proto(), want)

	// A clone is independent, of a table of one container too.
	one := &owners{}
	_ = one.claim(ctrID, api.Field_MemLimit, "", pa)
	cloned := one.clone()
	_ = cloned.claim(ctrID, api.Field_CPUShares, "", pa)
	if owner(one.proto(), ctrID, api.Field_CPUShares, "") != "" || owner(cloned.proto(), ctrID, api.Field_MemLimit, "") != pa {
		t.Error("a one-container clone shares state or lost it")
	}
	c := o.clone()
	_ = c.claim(ctrID, api.Field_CPUShares, "", pa)
	if owner(o.proto(), ctrID, api.Field_CPUShares, "") != "" {
		t.Error("clone shares state")
	}
}
