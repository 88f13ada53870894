// SPDX-License-Identifier: Apache-2.0

package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

var updateDocs = flag.Bool("update", false, "rewrite the sample outputs (testdata/*.txt and docs/nritest.md) from real runs")

// docPage is the page that shows one sample output per mode, each after a
// "<!-- sample: FILE -->" line, verbatim from testdata/FILE.
const docPage = "../../docs/nritest.md"

// docSamples are the runs docs/nritest.md shows. shown maps paths of this
// run to the ones the page shows.
var docSamples = []struct {
	file  string
	setup func(t *testing.T) (args []string, shown map[string]string)
}{
	{"default-run.txt", func(*testing.T) ([]string, map[string]string) { return nil, nil }},
	{"conformance-run.txt", func(t *testing.T) ([]string, map[string]string) {
		dir := installStubs(t)
		return []string{"--conformance", "--plugin-path", dir}, map[string]string{dir: "/tmp/nri-plugins"}
	}},
	{"status-of.txt", func(t *testing.T) ([]string, map[string]string) {
		return []string{"--status-of", statusRuntime(t)}, nil
	}},
	{"container-record.txt", func(t *testing.T) ([]string, map[string]string) {
		return []string{"--status-of", statusRuntime(t), "--container", "ctr-1"}, nil
	}},
	{"config-run.txt", func(t *testing.T) ([]string, map[string]string) {
		file := filepath.Join(t.TempDir(), "config.toml")
		if err := os.WriteFile(file, []byte(rehearsedConfig), 0o644); err != nil {
			t.Fatal(err)
		}
		return []string{"--config", file, "--pod-annotation", "required-plugins.noderesource.dev=[annotator]"},
			map[string]string{file: "/etc/containerd/config.toml"}
	}},
}

// rehearsedConfig is the containerd config docs/nritest.md rehearses.
const rehearsedConfig = `version = 3

[plugins."io.containerd.nri.v1.nri"]
  plugin_request_timeout = "2s"

  [plugins."io.containerd.nri.v1.nri".plugin_settings."annotator"]
    request_timeout = "5s"
  [plugins."io.containerd.nri.v1.nri".plugin_settings."10-logger"]
    failure_policy = { fail_request = true, keep_connected = true }

  [plugins."io.containerd.nri.v1.nri".plugin_readiness]
    wait = "10s"
    exempt_namespaces = ["kube-system"]
`

// TestDocSamples: the output docs/nritest.md shows for each mode is what
// nritest prints, but for what changes from run to run (latencies, pids,
// latency buckets, times, temporary paths, the order in which validators
// answered), and the page holds exactly the committed sample.
func TestDocSamples(t *testing.T) {
	t.Run("runs", func(t *testing.T) {
		for _, s := range docSamples {
			t.Run(s.file, func(t *testing.T) {
				t.Parallel()
				args, shown := s.setup(t)
				r := runCmd(t, args...)
				if r.code != exitOK {
					t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
				}
				out := r.stdout
				for from, to := range shown {
					out = strings.ReplaceAll(out, from, to)
				}
				golden := filepath.Join("testdata", s.file)
				if *updateDocs {
					if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
						t.Fatal(err)
					}
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatal(err)
				}
				if diff := firstDiff("shown", maskRun(string(want)), "real", maskRun(out)); diff != "" {
					t.Errorf("nritest %s no longer prints what %s shows (masked; -update rewrites it):\n%s\nfull output:\n%s",
						strings.Join(args, " "), golden, diff, out)
				}
			})
		}
	})
	page, err := os.ReadFile(docPage)
	if err != nil {
		t.Fatal(err)
	}
	text := string(page)
	for _, s := range docSamples {
		golden, err := os.ReadFile(filepath.Join("testdata", s.file))
		if err != nil {
			t.Fatal(err)
		}
		shown, start, end, ok := pageSample(text, s.file)
		if !ok {
			t.Errorf("%s has no sample block for %s (<!-- sample: %[2]s --> then a ```text block)", docPage, s.file)
			continue
		}
		if *updateDocs {
			text = text[:start] + string(golden) + text[end:]
			continue
		}
		if shown != string(golden) {
			t.Errorf("%s shows a %s that is not testdata/%[2]s verbatim:\n%s", docPage, s.file, firstDiff("testdata", string(golden), "page", shown))
		}
	}
	if *updateDocs && text != string(page) {
		if err := os.WriteFile(docPage, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// pageSample finds the fenced block after file's marker: its text and where
// that text starts and ends in page.
func pageSample(page, file string) (text string, start, end int, ok bool) {
	marker := "<!-- sample: " + file + " -->\n```text\n"
	i := strings.Index(page, marker)
	if i < 0 {
		return "", 0, 0, false
	}
	start = i + len(marker)
	n := strings.Index(page[start:], "```\n")
	if n < 0 || (n > 0 && page[start+n-1] != '\n') {
		return "", 0, 0, false
	}
	return page[start : start+n], start, start + n, true
}

var (
	maskLatency = regexp.MustCompile(`\b\d+\.\d+ms\b`)
	// maskBuckets: which latency buckets a STATUS row's calls fell in.
	maskBuckets = regexp.MustCompile(`\[(≤[^\]]*|>30s[^\]]*)\]$`)
	maskTime    = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)`)
	maskTemp    = regexp.MustCompile(`(/[^\s/]+)*/nritest-\d+`)
	maskPID     = regexp.MustCompile(`\b(pre-installed|external|builtin|wasm) (v1alpha1|v1beta1|-) \d+\b`)
)

// maskRun reduces a report to what does not change from run to run:
// latencies, latency buckets, times, temporary paths and pids are masked,
// column padding is one space, and the calls of a validation row, which
// validators answer at once, are sorted.
func maskRun(report string) string {
	var lines []string
	for _, line := range strings.Split(report, "\n") {
		line = strings.Join(strings.Fields(line), " ")
		line = maskLatency.ReplaceAllString(line, "N.NNms")
		line = maskBuckets.ReplaceAllString(line, "[BUCKETS]")
		line = maskTime.ReplaceAllString(line, "TIME")
		line = maskTemp.ReplaceAllString(line, "TMP/nritest-N")
		line = maskPID.ReplaceAllString(line, "$1 $2 PID")
		lines = append(lines, sortValidationCalls(line))
	}
	return strings.Join(lines, "\n")
}

// sortValidationCalls sorts the "plugin outcome latency" triples after
// "+ ValidateContainerAdjustment".
func sortValidationCalls(line string) string {
	const head = "+ ValidateContainerAdjustment "
	if !strings.HasPrefix(line, head) {
		return line
	}
	f := strings.Fields(strings.TrimPrefix(line, head))
	if len(f)%3 != 0 {
		return line
	}
	var calls []string
	for i := 0; i < len(f); i += 3 {
		calls = append(calls, strings.Join(f[i:i+3], " "))
	}
	slices.Sort(calls)
	return head + strings.Join(calls, " ")
}

// firstDiff describes the first line where b differs from a ("" if none).
func firstDiff(aName, want, bName, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < max(len(w), len(g)); i++ {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl != gl {
			return fmt.Sprintf("line %d:\n  %-8s %q\n  %-8s %q", i+1, aName+":", wl, bName+":", gl)
		}
	}
	return ""
}
