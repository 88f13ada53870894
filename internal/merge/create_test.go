// SPDX-License-Identifier: Apache-2.0

package merge

import (
	"slices"
	"strconv"
	"testing"

	"github.com/nrikit/nrikit/api"
)

type createCase struct {
	name    string
	replies []reply
	err     error  // wanted from the last reply; the earlier ones must succeed
	text    string // wanted in the last reply's error
	check   func(t *testing.T, c *Create, ctr *api.Container)
}

func runCreateCases(t *testing.T, cases []createCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			req := createReq()
			c := NewCreate(req)
			for i, r := range tc.replies {
				err := c.Apply(r.plugin, r.rsp)
				if i < len(tc.replies)-1 {
					checkErr(t, err, nil, "")
					continue
				}
				checkErr(t, err, tc.err, tc.text)
			}
			if tc.check != nil {
				tc.check(t, c, req.Container)
			}
		})
	}
}

func annotations(kv ...string) *api.CreateContainerResponse {
	m := map[string]string{}
	for i := 0; i < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return adj(&api.ContainerAdjustment{Annotations: m})
}

func TestCreateAnnotations(t *testing.T) {
	runCreateCases(t, []createCase{{
		name:    "same key conflicts",
		replies: []reply{{pa, annotations("x", "1")}, {pb, annotations("x", "2")}},
		err:     ErrConflict,
		text:    `plugins "10-a" and "20-b" both tried to set annotation "x"`,
	}, {
		name:    "different keys merge",
		replies: []reply{{pa, annotations("x", "1")}, {pb, annotations("y", "2")}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			got := c.Response().Adjust.Annotations
			if got["x"] != "1" || got["y"] != "2" || len(got) != 2 {
				t.Errorf("merged = %v", got)
			}
			if ctr.Annotations["x"] != "1" || ctr.Annotations["y"] != "2" {
				t.Errorf("container = %v", ctr.Annotations)
			}
			o := c.Owners()
			if owner(o, ctrID, api.Field_Annotations, "x") != pa || owner(o, ctrID, api.Field_Annotations, "y") != pb {
				t.Errorf("owners = %v", o)
			}
		},
	}, {
		name:    "removal and set in one reply replace",
		replies: []reply{{pa, annotations("x", "1")}, {pb, annotations("-x", "", "x", "2")}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			got := c.Response().Adjust.Annotations
			if v, ok := got["-x"]; got["x"] != "2" || !ok || v != "" {
				t.Errorf("merged = %v", got)
			}
			if ctr.Annotations["x"] != "2" {
				t.Errorf("container = %v", ctr.Annotations)
			}
			if o := owner(c.Owners(), ctrID, api.Field_Annotations, "x"); o != pb {
				t.Errorf("owner = %q", o)
			}
		},
	}, {
		name:    "replaced key then belongs to the replacer",
		replies: []reply{{pa, annotations("x", "1")}, {pb, annotations("-x", "", "x", "2")}, {pc, annotations("x", "3")}},
		err:     ErrConflict,
		text:    `plugins "20-b" and "30-c"`,
	}, {
		name:    "pure removal claims nothing and is forwarded",
		replies: []reply{{pa, annotations("x", "1")}, {pb, annotations("-x", "", "-orig", "")}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			got := c.Response().Adjust.Annotations
			want := map[string]string{"x": "1", "-x": "", "-orig": ""}
			if len(got) != len(want) || got["x"] != "1" {
				t.Errorf("merged = %v, want %v", got, want)
			}
			if o := owner(c.Owners(), ctrID, api.Field_Annotations, "x"); o != pa {
				t.Errorf("owner = %q", o)
			}
			// Later plugins do not see pure removals.
			if ctr.Annotations["orig"] != "o" || ctr.Annotations["x"] != "1" {
				t.Errorf("container = %v", ctr.Annotations)
			}
		},
	}, {
		name:    "original value is owned by nobody",
		replies: []reply{{pa, annotations("orig", "new")}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			if ctr.Annotations["orig"] != "new" {
				t.Errorf("container = %v", ctr.Annotations)
			}
		},
	}, {
		name:    "empty key",
		replies: []reply{{pa, annotations("", "v")}},
		err:     ErrInvalidAdjustment,
		text:    `plugin "10-a"`,
	}, {
		name:    "lone removal marker",
		replies: []reply{{pa, annotations("-", "")}},
		err:     ErrInvalidAdjustment,
	}})
}

func TestCreateMounts(t *testing.T) {
	mounts := func(ms ...*api.Mount) *api.CreateContainerResponse {
		return adj(&api.ContainerAdjustment{Mounts: ms})
	}
	m := func(dst, src string) *api.Mount { return &api.Mount{Destination: dst, Source: src} }
	runCreateCases(t, []createCase{{
		name:    "same destination conflicts",
		replies: []reply{{pa, mounts(m("/m", "a"))}, {pb, mounts(m("/m", "b"))}},
		err:     ErrConflict,
		text:    `plugins "10-a" and "20-b" both tried to set mount "/m"`,
	}, {
		name:    "same destination twice in one reply conflicts",
		replies: []reply{{pa, mounts(m("/m", "1"), m("/m", "2"))}},
		err:     ErrConflict,
		text:    `plugin "10-a" tried to set mount "/m" twice`,
	}, {
		name:    "removal drops an earlier mount and clears ownership",
		replies: []reply{{pa, mounts(m("/m", "a"), m("/n", "a"))}, {pb, mounts(m("-/m", ""))}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			got := c.Response().Adjust.Mounts
			if len(got) != 2 || got[0].Destination != "/n" || got[1].Destination != "-/m" {
				t.Errorf("merged = %v", got)
			}
			if o := owner(c.Owners(), ctrID, api.Field_Mounts, "/m"); o != "-"+pb {
				t.Errorf("owner = %q", o)
			}
			if slices.ContainsFunc(ctr.Mounts, func(x *api.Mount) bool { return x.Destination == "/m" }) {
				t.Errorf("container still has /m: %v", ctr.Mounts)
			}
		},
	}, {
		name:    "cleared ownership: only the clearer may claim",
		replies: []reply{{pa, mounts(m("/m", "a"))}, {pb, mounts(m("-/m", ""))}, {pc, mounts(m("/m", "c"))}},
		err:     ErrConflict,
		text:    `plugins "20-b" and "30-c" both tried to set mount "/m"`,
	}, {
		name:    "cleared ownership: the clearer may claim",
		replies: []reply{{pa, mounts(m("/m", "a"))}, {pb, mounts(m("-/m", ""))}, {pb, mounts(m("/m", "b"))}},
		check: func(t *testing.T, c *Create, _ *api.Container) {
			if o := owner(c.Owners(), ctrID, api.Field_Mounts, "/m"); o != pb {
				t.Errorf("owner = %q", o)
			}
		},
	}, {
		name:    "removal and set in one reply replace",
		replies: []reply{{pa, mounts(m("/m", "a"))}, {pb, mounts(m("/m", "b"), m("-/m", ""))}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			got := c.Response().Adjust.Mounts
			if len(got) != 1 || got[0].Source != "b" {
				t.Errorf("merged = %v", got)
			}
			i := slices.IndexFunc(ctr.Mounts, func(x *api.Mount) bool { return x.Destination == "/m" })
			if i < 0 || ctr.Mounts[i].Source != "b" {
				t.Errorf("container = %v", ctr.Mounts)
			}
		},
	}, {
		name:    "original mount is replaced in the container",
		replies: []reply{{pa, mounts(m("/orig", "new"))}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			if len(ctr.Mounts) != 1 || ctr.Mounts[0].Source != "new" {
				t.Errorf("container = %v", ctr.Mounts)
			}
		},
	}, {
		name:    "nil entry",
		replies: []reply{{pa, mounts(nil)}},
		err:     ErrInvalidAdjustment,
	}, {
		name:    "empty destination",
		replies: []reply{{pa, mounts(m("", "x"))}},
		err:     ErrInvalidAdjustment,
	}})
}

func TestCreateEnv(t *testing.T) {
	env := func(kv ...string) *api.CreateContainerResponse {
		a := &api.ContainerAdjustment{}
		for i := 0; i < len(kv); i += 2 {
			a.Env = append(a.Env, &api.KeyValue{Key: kv[i], Value: kv[i+1]})
		}
		return adj(a)
	}
	runCreateCases(t, []createCase{{
		name:    "same name conflicts",
		replies: []reply{{pa, env("X", "1")}, {pb, env("X", "2")}},
		err:     ErrConflict,
		text:    `plugins "10-a" and "20-b" both tried to set environment variable "X"`,
	}, {
		name:    "same name twice in one reply conflicts",
		replies: []reply{{pa, env("X", "1", "X", "2")}},
		err:     ErrConflict,
		text:    `plugin "10-a" tried to set environment variable "X" twice`,
	}, {
		name:    "different names merge; originals are overridden in place",
		replies: []reply{{pa, env("X", "1", "ORIG", "2")}, {pb, env("Y", "3")}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			if got := c.Response().Adjust.Env; len(got) != 3 {
				t.Errorf("merged = %v", got)
			}
			want := []string{"ORIG=2", "PATH=/bin", "X=1", "Y=3"}
			if !slices.Equal(ctr.Env, want) {
				t.Errorf("container = %v, want %v", ctr.Env, want)
			}
		},
	}, {
		name:    "removal and set in one reply replace",
		replies: []reply{{pa, env("X", "1")}, {pb, env("-X", "", "X", "2")}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			got := c.Response().Adjust.Env
			if len(got) != 1 || got[0].Key != "X" || got[0].Value != "2" {
				t.Errorf("merged = %v", got)
			}
			if !slices.Contains(ctr.Env, "X=2") || slices.Contains(ctr.Env, "X=1") {
				t.Errorf("container = %v", ctr.Env)
			}
		},
	}, {
		// Deviation: the removal is forwarded so the runtime can act on it.
		name:    "pure removal is forwarded and seen by later plugins",
		replies: []reply{{pa, env("X", "1")}, {pb, env("-X", "", "-ORIG", "")}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			var keys []string
			for _, kv := range c.Response().Adjust.Env {
				keys = append(keys, kv.Key)
			}
			if !slices.Equal(keys, []string{"-X", "-ORIG"}) {
				t.Errorf("merged keys = %v", keys)
			}
			if !slices.Equal(ctr.Env, []string{"PATH=/bin"}) {
				t.Errorf("container = %v", ctr.Env)
			}
			if o := owner(c.Owners(), ctrID, api.Field_Env, "X"); o != "-"+pb {
				t.Errorf("owner = %q", o)
			}
		},
	}, {
		name:    "name with '='",
		replies: []reply{{pa, env("A=B", "1")}},
		err:     ErrInvalidAdjustment,
	}})
}

func TestCreateArgs(t *testing.T) {
	args := func(a ...string) *api.CreateContainerResponse { return adj(&api.ContainerAdjustment{Args: a}) }
	runCreateCases(t, []createCase{{
		name:    "second setter conflicts",
		replies: []reply{{pa, args("x")}, {pb, args("y")}},
		err:     ErrConflict,
		text:    `plugins "10-a" and "20-b" both tried to set args`,
	}, {
		name:    "leading empty element takes over",
		replies: []reply{{pa, args("x")}, {pb, args("", "y", "z")}},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			if got := c.Response().Adjust.Args; !slices.Equal(got, []string{"y", "z"}) {
				t.Errorf("merged = %v", got)
			}
			if !slices.Equal(ctr.Args, []string{"y", "z"}) {
				t.Errorf("container = %v", ctr.Args)
			}
			if o := owner(c.Owners(), ctrID, api.Field_Args, ""); o != pb {
				t.Errorf("owner = %q", o)
			}
		},
	}, {
		name:    "taken-over args conflict for others",
		replies: []reply{{pa, args("x")}, {pb, args("", "y")}, {pc, args("z")}},
		err:     ErrConflict,
		text:    `plugins "20-b" and "30-c"`,
	}, {
		name:    "empty takeover is invalid",
		replies: []reply{{pa, args("")}},
		err:     ErrInvalidAdjustment,
	}, {
		name:    "original args are overridden",
		replies: []reply{{pa, args("bash")}},
		check: func(t *testing.T, _ *Create, ctr *api.Container) {
			if !slices.Equal(ctr.Args, []string{"bash"}) {
				t.Errorf("container = %v", ctr.Args)
			}
		},
	}})
}

func TestCreateHooksAccumulate(t *testing.T) {
	hook := func(p string) *api.Hook { return &api.Hook{Path: p} }
	runCreateCases(t, []createCase{{
		name: "hooks never conflict and record every plugin",
		replies: []reply{
			{pa, adj(&api.ContainerAdjustment{Hooks: &api.Hooks{Prestart: []*api.Hook{hook("/a")}}})},
			{pb, adj(&api.ContainerAdjustment{Hooks: &api.Hooks{Prestart: []*api.Hook{hook("/b")}, Poststop: []*api.Hook{hook("/b2")}}})},
		},
		check: func(t *testing.T, c *Create, ctr *api.Container) {
			h := c.Response().Adjust.Hooks
			if len(h.Prestart) != 2 || h.Prestart[0].Path != "/a" || h.Prestart[1].Path != "/b" || len(h.Poststop) != 1 {
				t.Errorf("merged = %v", h)
			}
			if len(ctr.Hooks.GetPrestart()) != 2 {
				t.Errorf("container = %v", ctr.Hooks)
			}
			if o := owner(c.Owners(), ctrID, api.Field_OciHooks, ""); o != "10-a,20-b" {
				t.Errorf("owner = %q", o)
			}
		},
	}, {
		name:    "nil hook",
		replies: []reply{{pa, adj(&api.ContainerAdjustment{Hooks: &api.Hooks{Poststart: []*api.Hook{nil}}})}},
		err:     ErrInvalidAdjustment,
	}})
}

// TestCreateHugeReplyStaysLinear guards against quadratic merging: a hostile
// plugin may send hundreds of thousands of entries in one 4 MiB reply.
func TestCreateHugeReplyStaysLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("large input")
	}
	const n = 20000
	req := createReq()
	a := &api.ContainerAdjustment{}
	for i := range n {
		d := "/m" + strconv.Itoa(i)
		req.Container.Mounts = append(req.Container.Mounts, &api.Mount{Destination: d})
		a.Mounts = append(a.Mounts, &api.Mount{Destination: d, Source: "x"}, &api.Mount{Destination: "-/r" + strconv.Itoa(i)})
		a.Env = append(a.Env, &api.KeyValue{Key: "E" + strconv.Itoa(i)})
	}
	c := NewCreate(req)
	checkErr(t, c.Apply(pa, adj(a)), nil, "")
	if got := len(c.Response().Adjust.Mounts); got != 2*n {
		t.Errorf("merged mounts = %d", got)
	}
	if got := len(req.Container.Mounts); got != n+1 {
		t.Errorf("container mounts = %d", got)
	}
}
