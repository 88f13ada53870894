// SPDX-License-Identifier: Apache-2.0

//go:build wasip1

package main

import (
	"fmt"
	"strings"

	"github.com/containerd/nri/pkg/api"
)

// handlers are the guest API's methods, by the names used in settings and
// records.
var handlers = []string{
	"Configure", "Synchronize", "Shutdown",
	"RunPodSandbox", "UpdatePodSandbox", "PostUpdatePodSandbox", "StopPodSandbox", "RemovePodSandbox",
	"CreateContainer", "PostCreateContainer", "StartContainer", "PostStartContainer",
	"UpdateContainer", "PostUpdateContainer", "StopContainer", "RemoveContainer",
	"StateChange", "ValidateContainerAdjustment",
}

// actions are what a handler can be told to do instead of answering.
var actions = []string{"fail", "trap", "panic", "exit", "loop", "sleep", "grow", "logflood", "spew"}

// settings is what the plugin is told to do, from its config text: one
// key=value per line; blank lines and lines starting with '#' are skipped.
type settings struct {
	events     string              // subscription, as api.ParseEventMask takes it; "" = all
	act        map[string][]string // action -> handler names
	annotation keyValue            // added by CreateContainer when Key != ""
	env        keyValue            // added by CreateContainer when Key != ""
	policy     *api.FailurePolicy  // sent in ConfigureResponse when set
}

type keyValue struct{ Key, Value string }

func parseSettings(text string) (*settings, error) {
	s := &settings{act: map[string][]string{}}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("line %q has no '='", line)
		}
		if err := s.set(strings.TrimSpace(key), strings.TrimSpace(value)); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *settings) set(key, value string) error {
	switch key {
	case "events":
		if _, err := api.ParseEventMask(value); err != nil {
			return fmt.Errorf("events: %w", err)
		}
		s.events = value
		return nil
	case "annotation":
		return parseKeyValue(value, &s.annotation)
	case "env":
		return parseKeyValue(value, &s.env)
	case "failure_policy":
		s.policy = &api.FailurePolicy{}
		for _, f := range strings.Split(value, ",") {
			switch strings.TrimSpace(f) {
			case "fail_request":
				s.policy.FailRequest = true
			case "keep_connected":
				s.policy.KeepConnected = true
			case "default":
			default:
				return fmt.Errorf("failure_policy: unknown flag %q", f)
			}
		}
		return nil
	}
	for _, a := range actions {
		if key == a {
			names, err := parseHandlers(value)
			s.act[a] = names
			return err
		}
	}
	return fmt.Errorf("unknown setting %q", key)
}

func parseKeyValue(value string, kv *keyValue) error {
	if value == "" {
		*kv = keyValue{}
		return nil
	}
	k, v, ok := strings.Cut(value, "=")
	if !ok || k == "" {
		return fmt.Errorf("%q is not KEY=VALUE", value)
	}
	*kv = keyValue{k, v}
	return nil
}

func parseHandlers(list string) ([]string, error) {
	var names []string
	for _, n := range strings.Split(list, ",") {
		if n = strings.TrimSpace(n); n == "" {
			continue
		}
		canonical := ""
		for _, h := range handlers {
			if strings.EqualFold(n, h) {
				canonical = h
			}
		}
		if canonical == "" {
			return nil, fmt.Errorf("unknown handler %q", n)
		}
		names = append(names, canonical)
	}
	return names, nil
}

// action is what handler is told to do, "" to answer normally.
func (s *settings) action(handler string) string {
	for _, a := range actions {
		for _, h := range s.act[a] {
			if h == handler {
				return a
			}
		}
	}
	return ""
}
