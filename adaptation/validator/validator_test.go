// SPDX-License-Identifier: Apache-2.0

package validator_test

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
	"github.com/nrikit/nrikit/internal/merge"
)

// reply is one plugin's CreateContainer adjustment.
type reply struct {
	plugin string // idx-name
	adjust *api.ContainerAdjustment
}

// request builds the validation request the runtime would send after the
// given replies: owners from the real merge, every replying plugin consulted
// plus the extra ones.
func request(t *testing.T, pod *api.PodSandbox, profile *api.SecurityProfile, replies []reply, extra ...string) *api.ValidateContainerAdjustmentRequest {
	t.Helper()
	ctr := &api.Container{Id: "c1", PodSandboxId: pod.GetId(), Name: "app"}
	if profile != nil {
		ctr.Linux = &api.LinuxContainer{SeccompProfile: profile}
	}
	result := merge.NewCreate(&api.CreateContainerRequest{Pod: pod, Container: ctr})
	req := &api.ValidateContainerAdjustmentRequest{Pod: pod}
	for _, r := range replies {
		if err := result.Apply(r.plugin, &api.CreateContainerResponse{Adjust: r.adjust}); err != nil {
			t.Fatalf("merge %s: %v", r.plugin, err)
		}
		req.Plugins = append(req.Plugins, instance(r.plugin))
	}
	for _, id := range extra {
		req.Plugins = append(req.Plugins, instance(id))
	}
	req.Container = result.Original()
	req.Adjust = result.Response().GetAdjust()
	req.Owners = result.Owners()
	return req
}

func instance(id string) *api.PluginInstance {
	idx, name, _ := strings.Cut(id, "-")
	return &api.PluginInstance{Index: idx, Name: name}
}

func pod(annotations map[string]string) *api.PodSandbox {
	return &api.PodSandbox{Id: "p1", Name: "web", Namespace: "prod", Annotations: annotations}
}

func hook() *api.ContainerAdjustment {
	return &api.ContainerAdjustment{Hooks: &api.Hooks{CreateRuntime: []*api.Hook{{Path: "/bin/hook"}}}}
}

func seccomp() *api.ContainerAdjustment {
	return linux(&api.LinuxContainerAdjustment{SeccompPolicy: &api.LinuxSeccomp{DefaultAction: "SCMP_ACT_ALLOW"}})
}

func namespace(typ string) *api.ContainerAdjustment {
	return linux(&api.LinuxContainerAdjustment{Namespaces: []*api.LinuxNamespace{{Type: typ, Path: "/proc/1/ns/" + typ}}})
}

func sysctl(key string) *api.ContainerAdjustment {
	return linux(&api.LinuxContainerAdjustment{Sysctl: map[string]string{key: "1"}})
}

func env() *api.ContainerAdjustment {
	return &api.ContainerAdjustment{Env: []*api.KeyValue{{Key: "A", Value: "1"}}}
}

func linux(l *api.LinuxContainerAdjustment) *api.ContainerAdjustment {
	return &api.ContainerAdjustment{Linux: l}
}

func profile(t api.SecurityProfile_ProfileType) *api.SecurityProfile {
	return &api.SecurityProfile{ProfileType: t}
}

type validation struct {
	name    string
	cfg     validator.DefaultValidatorConfig
	pod     map[string]string // pod annotations
	profile *api.SecurityProfile
	replies []reply
	extra   []string // consulted plugins that made no adjustment
	want    []string // substrings of the rejection; none: accepted
}

func (v validation) run(t *testing.T) {
	t.Helper()
	err := validator.NewDefaultValidator(&v.cfg).ValidateContainerAdjustment(context.Background(), request(t, pod(v.pod), v.profile, v.replies, v.extra...))
	if len(v.want) == 0 {
		if err != nil {
			t.Fatalf("rejected: %v", err)
		}
		return
	}
	if !errors.Is(err, validator.ErrValidation) {
		t.Fatalf("got %v, want a rejection", err)
	}
	if !strings.HasPrefix(err.Error(), "nrikit: rejected by the default validator: container prod/web/app: ") {
		t.Errorf("rejection does not name the container: %v", err)
	}
	for _, w := range v.want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("rejection %q does not say %q", err, w)
		}
	}
}

func TestRules(t *testing.T) {
	for _, tc := range []validation{
		{name: "nothing restricted, nothing required", replies: []reply{{"10-a", hook()}, {"20-b", seccomp()}, {"30-c", namespace("network")}, {"40-d", sysctl("net.x")}}},
		{name: "hook allowed", cfg: validator.DefaultValidatorConfig{RejectNamespaceAdjustment: true}, replies: []reply{{"10-a", hook()}}},
		{name: "hook rejected", cfg: validator.DefaultValidatorConfig{RejectOCIHookAdjustment: true}, replies: []reply{{"10-a", hook()}, {"20-b", env()}},
			want: []string{`reject_oci_hook_adjustment: plugin "10-a" injected OCI hooks`}},
		{name: "hooks from two plugins", cfg: validator.DefaultValidatorConfig{RejectOCIHookAdjustment: true}, replies: []reply{{"10-a", hook()}, {"20-b", hook()}},
			want: []string{`reject_oci_hook_adjustment: plugins "10-a", "20-b" injected OCI hooks`}},
		{name: "no hook", cfg: validator.DefaultValidatorConfig{RejectOCIHookAdjustment: true}, replies: []reply{{"10-a", env()}}},

		{name: "seccomp without profile is unconfined", cfg: validator.DefaultValidatorConfig{RejectUnconfinedSeccompAdjustment: true}, replies: []reply{{"10-a", seccomp()}},
			want: []string{`reject_unconfined_seccomp_adjustment: plugin "10-a" adjusted the seccomp policy of an unconfined container`}},
		{name: "seccomp unconfined", cfg: validator.DefaultValidatorConfig{RejectUnconfinedSeccompAdjustment: true}, profile: profile(api.SecurityProfile_UNCONFINED), replies: []reply{{"10-a", seccomp()}},
			want: []string{"reject_unconfined_seccomp_adjustment", `"10-a"`}},
		{name: "seccomp unconfined allowed", cfg: validator.DefaultValidatorConfig{RejectRuntimeDefaultSeccompAdjustment: true, RejectCustomSeccompAdjustment: true}, profile: profile(api.SecurityProfile_UNCONFINED), replies: []reply{{"10-a", seccomp()}}},
		{name: "seccomp runtime default", cfg: validator.DefaultValidatorConfig{RejectRuntimeDefaultSeccompAdjustment: true}, profile: profile(api.SecurityProfile_RUNTIME_DEFAULT), replies: []reply{{"10-a", seccomp()}},
			want: []string{`reject_runtime_default_seccomp_adjustment: plugin "10-a" adjusted the seccomp policy of a container with the runtime default profile`}},
		{name: "seccomp runtime default allowed", cfg: validator.DefaultValidatorConfig{RejectUnconfinedSeccompAdjustment: true, RejectCustomSeccompAdjustment: true}, profile: profile(api.SecurityProfile_RUNTIME_DEFAULT), replies: []reply{{"10-a", seccomp()}}},
		{name: "seccomp custom", cfg: validator.DefaultValidatorConfig{RejectCustomSeccompAdjustment: true}, profile: profile(api.SecurityProfile_LOCALHOST), replies: []reply{{"10-a", seccomp()}},
			want: []string{`reject_custom_seccomp_adjustment: plugin "10-a" adjusted the seccomp policy of a container with a custom (localhost) profile`}},
		{name: "seccomp custom allowed", cfg: validator.DefaultValidatorConfig{RejectUnconfinedSeccompAdjustment: true, RejectRuntimeDefaultSeccompAdjustment: true}, profile: profile(api.SecurityProfile_LOCALHOST), replies: []reply{{"10-a", seccomp()}}},
		{name: "seccomp untouched", cfg: validator.DefaultValidatorConfig{RejectUnconfinedSeccompAdjustment: true}, replies: []reply{{"10-a", env()}}},

		{name: "namespace added", cfg: validator.DefaultValidatorConfig{RejectNamespaceAdjustment: true}, replies: []reply{{"10-a", namespace("network")}, {"20-b", namespace("ipc")}},
			want: []string{`reject_namespace_adjustment: plugin "10-a" adjusted namespaces (network), plugin "20-b" adjusted namespaces (ipc)`}},
		{name: "namespace removed", cfg: validator.DefaultValidatorConfig{RejectNamespaceAdjustment: true}, replies: []reply{{"10-a", namespace("-pid")}},
			want: []string{`reject_namespace_adjustment: plugin "10-a" adjusted namespaces (pid)`}},
		{name: "namespace allowed", cfg: validator.DefaultValidatorConfig{RejectSysctlAdjustment: true}, replies: []reply{{"10-a", namespace("network")}}},

		{name: "sysctl set", cfg: validator.DefaultValidatorConfig{RejectSysctlAdjustment: true},
			replies: []reply{{"10-a", linux(&api.LinuxContainerAdjustment{Sysctl: map[string]string{"net.b": "1", "kernel.a": "2"}})}},
			want:    []string{`reject_sysctl_adjustment: plugin "10-a" adjusted sysctls (kernel.a, net.b)`}},
		{name: "sysctl replaced", cfg: validator.DefaultValidatorConfig{RejectSysctlAdjustment: true},
			replies: []reply{{"10-a", linux(&api.LinuxContainerAdjustment{Sysctl: map[string]string{"-net.x": "", "net.x": "0"}})}},
			want:    []string{`plugin "10-a" adjusted sysctls (net.x)`}},
		// As in the reference: a removal alone claims no sysctl, so the
		// owner table, which the rule reads, has no trace of it.
		{name: "sysctl removal alone", cfg: validator.DefaultValidatorConfig{RejectSysctlAdjustment: true}, replies: []reply{{"10-a", sysctl("-net.x")}}},
		{name: "sysctl allowed", cfg: validator.DefaultValidatorConfig{RejectNamespaceAdjustment: true}, replies: []reply{{"10-a", sysctl("net.x")}}},

		{name: "every violation named", cfg: validator.DefaultValidatorConfig{RejectOCIHookAdjustment: true, RejectUnconfinedSeccompAdjustment: true, RejectNamespaceAdjustment: true, RejectSysctlAdjustment: true, RequiredPlugins: []string{"gone"}},
			replies: []reply{{"10-a", hook()}, {"20-b", seccomp()}, {"30-c", namespace("network")}, {"40-d", sysctl("net.x")}},
			want: []string{`plugin "10-a" injected OCI hooks; reject_unconfined_seccomp_adjustment: plugin "20-b"`, `unconfined container; reject_namespace_adjustment: plugin "30-c"`,
				`; required_plugins: required plugin "gone" did not handle`, `; reject_sysctl_adjustment: plugin "40-d" adjusted sysctls (net.x)`}},
	} {
		t.Run(tc.name, tc.run)
	}
}

func TestRequiredPlugins(t *testing.T) {
	const tolerate = "tolerate.example.com"
	for _, tc := range []validation{
		{name: "present by name", cfg: validator.DefaultValidatorConfig{RequiredPlugins: []string{"a"}}, extra: []string{"10-a"}},
		{name: "present by index and name", cfg: validator.DefaultValidatorConfig{RequiredPlugins: []string{"10-a"}}, replies: []reply{{"10-a", env()}}},
		{name: "other index", cfg: validator.DefaultValidatorConfig{RequiredPlugins: []string{"20-a"}}, extra: []string{"10-a"},
			want: []string{`required_plugins: required plugin "20-a" did not handle the container's creation`}},
		{name: "several missing", cfg: validator.DefaultValidatorConfig{RequiredPlugins: []string{"x", "a", "y", "x"}}, extra: []string{"10-a"},
			want: []string{`required_plugins: required plugins "x", "y" did not handle`}},
		{name: "nothing consulted", cfg: validator.DefaultValidatorConfig{RequiredPlugins: []string{"a"}},
			want: []string{`required plugin "a" did not handle`}},

		{name: "tolerated", cfg: validator.DefaultValidatorConfig{RequiredPlugins: []string{"a"}, TolerateMissingAnnotation: tolerate},
			pod: map[string]string{tolerate: "true", validator.RequiredPlugins: "[b]"}},
		{name: "tolerate false", cfg: validator.DefaultValidatorConfig{RequiredPlugins: []string{"a"}, TolerateMissingAnnotation: tolerate},
			pod: map[string]string{tolerate: "false"}, want: []string{`required plugin "a"`}},
		{name: "tolerate annotation not configured", cfg: validator.DefaultValidatorConfig{RequiredPlugins: []string{"a"}},
			pod: map[string]string{tolerate: "true"}, want: []string{`required plugin "a"`}},
		{name: "tolerate unparsable", cfg: validator.DefaultValidatorConfig{TolerateMissingAnnotation: tolerate},
			pod:  map[string]string{tolerate: "maybe"},
			want: []string{`tolerate_missing_plugins_annotation: annotation tolerate.example.com="maybe" is not a boolean`}},

		{name: "annotated present", pod: map[string]string{validator.RequiredPlugins: "- a\n- 20-b\n"}, extra: []string{"10-a", "20-b"}},
		{name: "annotated missing", cfg: validator.DefaultValidatorConfig{RequiredPlugins: []string{"a"}},
			pod: map[string]string{validator.RequiredPlugins: "[a, b, c]"}, extra: []string{"10-c"},
			want: []string{`required_plugins: required plugin "a" did not handle`, `; annotation required-plugins.noderesource.dev: required plugin "b" did not handle`}},
		{name: "annotated empty list", cfg: validator.DefaultValidatorConfig{}, pod: map[string]string{validator.RequiredPlugins: "[]"}},
		{name: "annotated scalar", pod: map[string]string{validator.RequiredPlugins: "a"}, extra: []string{"10-a"},
			want: []string{`annotation required-plugins.noderesource.dev="a" is not a YAML list of plugin names: yaml: unmarshal errors: line 1: cannot unmarshal !!str ` + "`a`" + ` into []string`}},
		{name: "annotated mapping", pod: map[string]string{validator.RequiredPlugins: "a: b"},
			want: []string{"is not a YAML list of plugin names"}},
		{name: "annotated broken YAML", pod: map[string]string{validator.RequiredPlugins: "[a, b"},
			want: []string{`annotation required-plugins.noderesource.dev="[a, b" is not a YAML list of plugin names: yaml: line 1`}},
		{name: "annotated empty name", pod: map[string]string{validator.RequiredPlugins: "[a, '']"}, extra: []string{"10-a"},
			want: []string{"names an empty plugin"}},
	} {
		t.Run(tc.name, tc.run)
	}
}

// TestAnnotationScopes: both annotations are looked up as
// <key>/container.<name>, then <key>/pod, then <key>; the first found wins.
func TestAnnotationScopes(t *testing.T) {
	const tol = "tolerate.example.com"
	req := validator.RequiredPlugins
	cfg := validator.DefaultValidatorConfig{RequiredPlugins: []string{"a"}, TolerateMissingAnnotation: tol}
	for _, tc := range []validation{
		{name: "tolerate: container scope", pod: map[string]string{tol + "/container.app": "true", tol + "/pod": "false", tol: "false"}},
		{name: "tolerate: container scope says no", pod: map[string]string{tol + "/container.app": "false", tol + "/pod": "true", tol: "true"},
			want: []string{`required plugin "a"`}},
		{name: "tolerate: another container's scope", pod: map[string]string{tol + "/container.other": "true"},
			want: []string{`required plugin "a"`}},
		{name: "tolerate: pod scope", pod: map[string]string{tol + "/container.other": "false", tol + "/pod": "true", tol: "false"}},
		{name: "tolerate: pod scope says no", pod: map[string]string{tol + "/pod": "false", tol: "true"},
			want: []string{`required plugin "a"`}},
		{name: "tolerate: bare key", pod: map[string]string{tol: "true"}},
		{name: "tolerate: unparsable in container scope", pod: map[string]string{tol + "/container.app": "yes please", tol + "/pod": "true"},
			want: []string{`annotation tolerate.example.com/container.app="yes please" is not a boolean`}},
		{name: "tolerate: unparsable in pod scope", pod: map[string]string{tol + "/pod": "1x"},
			want: []string{`annotation tolerate.example.com/pod="1x" is not a boolean`}},

		{name: "required: container scope", pod: map[string]string{req + "/container.app": "[b]", req + "/pod": "[c]", req: "[d]"}, extra: []string{"10-a", "10-b"}},
		{name: "required: container scope missing", pod: map[string]string{req + "/container.app": "[b]", req + "/pod": "[c]"}, extra: []string{"10-a", "10-c"},
			want: []string{`annotation required-plugins.noderesource.dev/container.app: required plugin "b"`}},
		{name: "required: another container's scope", pod: map[string]string{req + "/container.other": "[b]"}, extra: []string{"10-a"}},
		{name: "required: pod scope", pod: map[string]string{req + "/pod": "[c]", req: "[d]"}, extra: []string{"10-a", "10-c"}},
		{name: "required: pod scope missing", pod: map[string]string{req + "/pod": "[c]", req: "[d]"}, extra: []string{"10-a", "10-d"},
			want: []string{`annotation required-plugins.noderesource.dev/pod: required plugin "c"`}},
		{name: "required: bare key missing", pod: map[string]string{req: "[d]"}, extra: []string{"10-a"},
			want: []string{`annotation required-plugins.noderesource.dev: required plugin "d"`}},
		{name: "required: broken YAML in pod scope", pod: map[string]string{req + "/pod": "{", req: "[a]"}, extra: []string{"10-a"},
			want: []string{`annotation required-plugins.noderesource.dev/pod="{" is not a YAML list`}},
	} {
		tc.cfg = cfg
		t.Run(tc.name, tc.run)
	}
}

func TestNewDefaultValidator(t *testing.T) {
	ctx := context.Background()
	req := request(t, pod(nil), nil, []reply{{"10-a", hook()}})
	if err := validator.NewDefaultValidator(nil).ValidateContainerAdjustment(ctx, req); err != nil {
		t.Errorf("a validator without config rejected: %v", err)
	}
	// The validator keeps its own copy of the config.
	cfg := &validator.DefaultValidatorConfig{RequiredPlugins: []string{"a"}}
	v := validator.NewDefaultValidator(cfg)
	cfg.RequiredPlugins[0] = "b"
	cfg.RejectOCIHookAdjustment = true
	if err := v.ValidateContainerAdjustment(ctx, req); err != nil {
		t.Errorf("a later change of the caller's config reached the validator: %v", err)
	}
}

// TestConfigKeys: the toml and json keys are the reference's, so that an
// operator's default_validator table keeps its meaning; dry_run, nrikit's
// addition, comes after them.
func TestConfigKeys(t *testing.T) {
	want := []string{"enable", "reject_oci_hook_adjustment", "reject_runtime_default_seccomp_adjustment",
		"reject_unconfined_seccomp_adjustment", "reject_custom_seccomp_adjustment", "reject_namespace_adjustment",
		"reject_sysctl_adjustment", "required_plugins", "tolerate_missing_plugins_annotation", "dry_run"}
	typ := reflect.TypeOf(validator.DefaultValidatorConfig{})
	if typ.NumField() != len(want) {
		t.Fatalf("%d fields, want %d", typ.NumField(), len(want))
	}
	for i, key := range want {
		f := typ.Field(i)
		if got := f.Tag.Get("toml"); got != key {
			t.Errorf("%s: toml key %q, want %q", f.Name, got, key)
		}
		if got, _, _ := strings.Cut(f.Tag.Get("json"), ","); got != key {
			t.Errorf("%s: json key %q, want %q", f.Name, got, key)
		}
	}
}
