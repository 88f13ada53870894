// SPDX-License-Identifier: Apache-2.0

// The tests' stand-ins: the active plugins, a tracker over them, a quiet log that keeps its lines.

package readiness

import (
	"io"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"

	"github.com/nrikit/nrikit/adaptation/validator"
	"github.com/nrikit/nrikit/api"
)

// waitLimit bounds every wait for something that should happen.
const waitLimit = 10 * time.Second

const (
	gateName          = "gate"
	gateID            = "10-" + gateName
	tolerateKey       = "example.com/tolerate-missing-plugins"
	exemptNamespace   = "kube-system"
	requiredAnnotated = validator.RequiredPlugins + "/pod"
)

// fakePlugins are the active plugins and their back-offs, as a test sets
// them. Its methods do not allocate.
type fakePlugins struct {
	mu        sync.Mutex
	active    map[string]Plugin // by id
	ids       []string          // sorted, so that ActiveAs is deterministic
	backoff   map[string]time.Time
	worstCase time.Duration
	// scope, when set, is the scope of every plugin: a pod outside it
	// does not require them.
	scope    func(name string, pod *api.PodSandbox) bool
	expected time.Duration // every awaited plugin's ExpectedTimeout
}

func newFakePlugins() *fakePlugins {
	return &fakePlugins{active: map[string]Plugin{}, backoff: map[string]time.Time{}}
}

// add makes id active, taking RunPodSandbox.
func (f *fakePlugins) add(id string) { f.set(Plugin{ID: id, TakesRunPodSandbox: true}) }

func (f *fakePlugins) set(p Plugin) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.active[p.ID]; !ok {
		f.ids = append(f.ids, p.ID)
		sort.Strings(f.ids)
	}
	f.active[p.ID] = p
}

func (f *fakePlugins) remove(id string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.active, id)
	for i, o := range f.ids {
		if o == id {
			f.ids = append(f.ids[:i], f.ids[i+1:]...)
			break
		}
	}
}

func (f *fakePlugins) backOff(id string, until time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.backoff[id] = until
}

func (f *fakePlugins) ActiveAs(name string) (Plugin, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, id := range f.ids {
		if Matches(name, id) {
			return f.active[id], true
		}
	}
	return Plugin{}, false
}

func (f *fakePlugins) BackoffUntil(id string) time.Time {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.backoff[id]
}

func (f *fakePlugins) OutOfScope(name string, pod *api.PodSandbox) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.scope != nil && !f.scope(name, pod)
}

func (f *fakePlugins) RunPodSandboxWorstCase() time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.worstCase
}

func (f *fakePlugins) ExpectedTimeout(string) time.Duration {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.expected
}

// fixture is a tracker over fake plugins whose log lines a test reads.
type fixture struct {
	*Tracker
	plugins *fakePlugins
	log     *logtest.Hook
}

// newFixture is a tracker that requires "gate" on the node and lets pods
// wait up to wait; edit adjusts its Config.
func newFixture(t *testing.T, wait time.Duration, edit ...func(*Config)) *fixture {
	t.Helper()
	logger, hook := logtest.NewNullLogger()
	logger.SetOutput(io.Discard)
	cfg := Config{
		Wait:   wait,
		Exempt: []string{exemptNamespace},
		Validator: validator.NewDefaultValidator(&validator.DefaultValidatorConfig{
			Enable: true, RequiredPlugins: []string{gateName}, TolerateMissingAnnotation: tolerateKey,
		}),
		DeadlineReserve: 100 * time.Millisecond,
		Log:             logrus.NewEntry(logger),
	}
	for _, e := range edit {
		e(&cfg)
	}
	plugins := newFakePlugins()
	return &fixture{Tracker: New(cfg, plugins), plugins: plugins, log: hook}
}

// requiring is a Config edit: the node requires names.
func requiring(names ...string) func(*Config) {
	return func(c *Config) {
		c.Validator = validator.NewDefaultValidator(&validator.DefaultValidatorConfig{
			Enable: true, RequiredPlugins: names, TolerateMissingAnnotation: tolerateKey,
		})
	}
}

// join makes id active and tells the tracker, as the core does.
func (f *fixture) join(id string) {
	f.plugins.add(id)
	f.Joined(id)
}

// leave makes id inactive and tells the tracker why.
func (f *fixture) leave(id, reason string) {
	f.plugins.remove(id)
	f.Left(id, "", reason)
}

// warnings are the messages logged at level Warn.
func (f *fixture) warnings() []*logrus.Entry {
	var out []*logrus.Entry
	for _, e := range f.log.AllEntries() {
		if e.Level == logrus.WarnLevel {
			out = append(out, e)
		}
	}
	return out
}

func testPod(name string) *api.PodSandbox {
	return &api.PodSandbox{Id: "id-" + name, Name: name, Namespace: "default"}
}
