// SPDX-License-Identifier: Apache-2.0

package filter

import (
	"strings"
	"testing"

	"github.com/nrikit/nrikit/api"
)

func pod(ns, handler string, labels, annotations map[string]string) *api.PodSandbox {
	return &api.PodSandbox{Id: "p", Namespace: ns, RuntimeHandler: handler, Labels: labels, Annotations: annotations}
}

func TestSelectorMatches(t *testing.T) {
	gpu := map[string]string{"nvidia.com/gpu.present": "true"}
	spot := map[string]string{"nvidia.com/gpu.present": "true", "spot": ""}
	cdi := map[string]string{"nvidia.cdi.k8s.io/ctr": "nvidia.com/gpu=0"}
	for _, tc := range []struct {
		name string
		spec Spec
		pod  *api.PodSandbox
		want bool
	}{
		{"namespace glob", Spec{Namespaces: []string{"ml-*", "gpu"}}, pod("ml-train", "", nil, nil), true},
		{"namespace exact", Spec{Namespaces: []string{"ml-*", "gpu"}}, pod("gpu", "", nil, nil), true},
		{"namespace none", Spec{Namespaces: []string{"ml-*", "gpu"}}, pod("default", "", nil, nil), false},
		{"glob is whole", Spec{Namespaces: []string{"ml"}}, pod("ml-train", "", nil, nil), false},
		{"excluded", Spec{ExcludeNamespaces: []string{"kube-system"}}, pod("kube-system", "", nil, nil), false},
		{"exclusion wins", Spec{Namespaces: []string{"*"}, ExcludeNamespaces: []string{"kube-*"}}, pod("kube-public", "", nil, nil), false},
		{"not excluded", Spec{ExcludeNamespaces: []string{"kube-system"}}, pod("default", "", nil, nil), true},
		{"handler", Spec{RuntimeHandlers: []string{"nvidia"}}, pod("default", "nvidia", nil, nil), true},
		{"other handler", Spec{RuntimeHandlers: []string{"nvidia"}}, pod("default", "runc", nil, nil), false},
		{"default handler", Spec{RuntimeHandlers: []string{"nvidia"}}, pod("default", "", nil, nil), false},
		{"label equals", Spec{PodLabels: []string{"nvidia.com/gpu.present=true"}}, pod("d", "", gpu, nil), true},
		{"label ==", Spec{PodLabels: []string{"nvidia.com/gpu.present==true"}}, pod("d", "", gpu, nil), true},
		{"label other value", Spec{PodLabels: []string{"nvidia.com/gpu.present=false"}}, pod("d", "", gpu, nil), false},
		{"label missing", Spec{PodLabels: []string{"nvidia.com/gpu.present=true"}}, pod("d", "", nil, nil), false},
		{"label not equals, other", Spec{PodLabels: []string{"tier!=gpu"}}, pod("d", "", map[string]string{"tier": "cpu"}, nil), true},
		{"label not equals, absent", Spec{PodLabels: []string{"tier!=gpu"}}, pod("d", "", nil, nil), true},
		{"label not equals, same", Spec{PodLabels: []string{"tier!=gpu"}}, pod("d", "", map[string]string{"tier": "gpu"}, nil), false},
		{"label exists", Spec{PodLabels: []string{"spot"}}, pod("d", "", spot, nil), true},
		{"label absent", Spec{PodLabels: []string{"nvidia.com/gpu.present=true", "!spot"}}, pod("d", "", spot, nil), false},
		{"all labels hold", Spec{PodLabels: []string{"nvidia.com/gpu.present=true", "!spot"}}, pod("d", "", gpu, nil), true},
		{"annotation glob", Spec{PodAnnotations: []string{"nvidia.cdi.k8s.io/*"}}, pod("d", "", nil, cdi), true},
		{"annotation absent", Spec{PodAnnotations: []string{"nvidia.cdi.k8s.io/*"}}, pod("d", "", nil, nil), false},
		{"annotation star crosses /", Spec{PodAnnotations: []string{"nvidia.*"}}, pod("d", "", nil, cdi), true},
		{"annotation exact", Spec{PodAnnotations: []string{"nvidia.cdi.k8s.io/ctr"}}, pod("d", "", nil, cdi), true},
		{"every part", Spec{Namespaces: []string{"ml-*"}, RuntimeHandlers: []string{"nvidia"}, PodLabels: []string{"!spot"}}, pod("ml-a", "nvidia", gpu, nil), true},
		{"one part fails", Spec{Namespaces: []string{"ml-*"}, RuntimeHandlers: []string{"nvidia"}, PodLabels: []string{"!spot"}}, pod("ml-a", "nvidia", spot, nil), false},
		{"nil pod", Spec{ExcludeNamespaces: []string{"kube-system"}}, nil, true},
		{"class", Spec{Namespaces: []string{"team-[a-c]"}}, pod("team-b", "", nil, nil), true},
		{"negated class", Spec{Namespaces: []string{"team-[!a-c]"}}, pod("team-b", "", nil, nil), false},
		{"question mark", Spec{Namespaces: []string{"team-?"}}, pod("team-xy", "", nil, nil), false},
		{"escaped star", Spec{Namespaces: []string{`a\*`}}, pod("a*", "", nil, nil), true},
		{"escaped star is no wildcard", Spec{Namespaces: []string{`a\*`}}, pod("ab", "", nil, nil), false},
		{"regexp characters are literal", Spec{Namespaces: []string{"a.b*"}}, pod("axb", "", nil, nil), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := New(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Matches(tc.pod); got != tc.want {
				t.Errorf("Matches(%v) = %v, want %v", tc.pod, got, tc.want)
			}
		})
	}
}

func TestNewNamesTheBadEntry(t *testing.T) {
	for _, tc := range []struct {
		spec Spec
		want string
	}{
		{Spec{Namespaces: []string{"ok", "ml-["}}, `namespaces[1]: malformed glob "ml-["`},
		{Spec{ExcludeNamespaces: []string{""}}, "exclude_namespaces[0]: empty pattern"},
		{Spec{PodAnnotations: []string{`a\`}}, `pod_annotations[0]: malformed glob "a\\"`},
		{Spec{Namespaces: []string{"[z-a]"}}, `namespaces[0]: malformed glob "[z-a]"`},
		{Spec{RuntimeHandlers: []string{"nvidia", ""}}, "runtime_handlers[1]: empty name"},
		{Spec{PodLabels: []string{""}}, "pod_labels[0]: empty selector"},
		{Spec{PodLabels: []string{"a", "=x"}}, `pod_labels[1]: selector "=x": '=' without a key`},
		{Spec{PodLabels: []string{"!=x"}}, `pod_labels[0]: selector "!=x": '=' without a key`},
		{Spec{PodLabels: []string{"!"}}, `pod_labels[0]: selector "!": '!' without a key`},
		{Spec{PodLabels: []string{"!a=b"}}, `pod_labels[0]: selector "!a=b": key "!a" holds '!' or '='`},
		{Spec{PodLabels: []string{"a=b=c"}}, `pod_labels[0]: selector "a=b=c": value "b=c" holds '!' or '='`},
		{Spec{PodLabels: []string{"a = b"}}, `pod_labels[0]: selector "a = b" has white space`},
	} {
		_, err := New(tc.spec)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("New(%+v) = %v, want an error beginning %q", tc.spec, err, tc.want)
		}
	}
}

func TestEmptySpecTakesEverything(t *testing.T) {
	s, err := New(Spec{})
	if err != nil || s != nil {
		t.Fatalf("New(Spec{}) = %v, %v; want nil, nil", s, err)
	}
	if !s.Matches(pod("kube-system", "", nil, nil)) {
		t.Error("a nil selector refused a pod")
	}
}

func TestSelectorKeepsItsSpec(t *testing.T) {
	spec := Spec{Namespaces: []string{"ml-*"}}
	s, err := New(spec)
	if err != nil {
		t.Fatal(err)
	}
	spec.Namespaces[0] = "other"
	if !s.Matches(pod("ml-x", "", nil, nil)) || s.Spec().Namespaces[0] != "ml-*" {
		t.Error("the caller's later change reached the selector")
	}
}

func TestParseText(t *testing.T) {
	s, err := ParseText("runtime_handlers=nvidia; pod_labels=nvidia.com/gpu.present=true,!spot;namespaces=ml-*,gpu")
	if err != nil {
		t.Fatal(err)
	}
	want := "namespaces=ml-*,gpu;runtime_handlers=nvidia;pod_labels=nvidia.com/gpu.present=true,!spot"
	if got := s.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	back, err := ParseText(s.String())
	if err != nil || back.String() != want {
		t.Errorf("ParseText(String()) = %q, %v", back.String(), err)
	}
	for _, bad := range []string{"", "nvidia", "handlers=nvidia"} {
		if _, err := ParseText(bad); err == nil {
			t.Errorf("ParseText(%q) took it", bad)
		}
	}
}

func FuzzSelector(f *testing.F) {
	f.Add("ml-*", "a=b", "x/*", "ml-x", "a", "b")
	f.Add("[!a-", "!", `\`, "", "", "")
	f.Fuzz(func(t *testing.T, ns, label, annotation, podNS, key, value string) {
		s, err := New(Spec{Namespaces: []string{ns}, PodLabels: []string{label}, PodAnnotations: []string{annotation}})
		if err != nil {
			return
		}
		s.Matches(pod(podNS, "", map[string]string{key: value}, map[string]string{key: value}))
	})
}
