// SPDX-License-Identifier: Apache-2.0

package api

import "testing"

func TestOwnerLookups(t *testing.T) {
	o := &OwningPlugins{Owners: map[string]*FieldOwners{"c1": {
		Simple: map[int32]string{int32(Field_MemLimit): "01-a", int32(Field_OciHooks): "01-a,02-b", int32(Field_CPUShares): "-02-b"},
		Compound: map[int32]*CompoundFieldOwners{
			int32(Field_Annotations): {Owners: map[string]string{"k": "02-b"}},
			int32(Field_Namespace):   {Owners: map[string]string{"network": "01-a"}},
		},
	}}}
	for _, c := range []struct {
		name   string
		fn     func() (string, bool)
		owner  string
		exists bool
	}{
		{"MemLimitOwner", func() (string, bool) { return o.MemLimitOwner("c1") }, "01-a", true},
		{"HooksOwner", func() (string, bool) { return o.HooksOwner("c1") }, "01-a,02-b", true},
		{"CPUSharesOwner (cleared)", func() (string, bool) { return o.CPUSharesOwner("c1") }, "-02-b", true},
		{"AnnotationOwner", func() (string, bool) { return o.AnnotationOwner("c1", "k") }, "02-b", true},
		{"AnnotationOwner other key", func() (string, bool) { return o.AnnotationOwner("c1", "x") }, "", false},
		{"NamespaceOwner", func() (string, bool) { return o.NamespaceOwner("c1", "network") }, "01-a", true},
		{"MountOwner no field", func() (string, bool) { return o.MountOwner("c1", "/d") }, "", false},
		{"unknown container", func() (string, bool) { return o.MemLimitOwner("c2") }, "", false},
		{"nil table", func() (string, bool) { return (*OwningPlugins)(nil).MemLimitOwner("c1") }, "", false},
		{"nil field owners", func() (string, bool) { return (*FieldOwners)(nil).SysctlOwner("k") }, "", false},
	} {
		owner, ok := c.fn()
		if owner != c.owner || ok != c.exists {
			t.Errorf("%s = %q, %v; want %q, %v", c.name, owner, ok, c.owner, c.exists)
		}
	}
	if m, ok := o.NamespaceOwners("c1"); !ok || m["network"] != "01-a" {
		t.Errorf("NamespaceOwners = %v, %v", m, ok)
	}
	if _, ok := o.NamespaceOwners("c2"); ok {
		t.Error("NamespaceOwners of an unknown container")
	}
}
